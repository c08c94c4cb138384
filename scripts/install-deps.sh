#!/usr/bin/env bash
# Installs what NavHost needs beyond the Swift toolchain, and only what is missing.
# Debian packages through apt; Python tools (the Varlink reference implementation) into .venv through pip.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
    pkg-config
    libjson-c-dev   # the JSON layer (NavHostJSON)
    libsystemd-dev  # sd_notify, socket activation, journald (CSystemd)
    systemd         # systemd-socket-activate, systemd-analyze, sysusers and tmpfiles for the systemd tests
    procps          # /bin/kill, which navhostd.service's ExecReload= names (the unit tests check it exists)
    libssl-dev      # SHA-256 of plugin libraries (COpenSSL)
    python3-venv    # the Varlink reference implementation used by the interop tests
)

missing=()
for package in "${apt_packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    echo "install-deps: installing ${missing[*]}"
    sudo_cmd=()
    if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
