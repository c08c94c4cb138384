#!/usr/bin/env bash
# Installs what NavHost needs beyond the Swift toolchain, and only what is missing.
# Debian packages through apt; Python tools (the Varlink reference implementation) into .venv through pip.
# With --sdk, only what the SDK's build needs (make install-sdk): the C libraries' headers, no test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
sdk_only=false
[[ ${1:-} == --sdk ]] && sdk_only=true

apt_packages=(
    pkg-config
    libjson-c-dev   # the JSON layer (NavHostJSON)
    libsystemd-dev  # sd_notify, socket activation, journald (CSystemd)
    systemd         # systemd-socket-activate, systemd-analyze, sysusers and tmpfiles for the systemd tests
    procps          # /bin/kill, which navhostd.service's ExecReload= names (the unit tests check it exists)
    libgcrypt20-dev # SHA-256 of plugin libraries and session files (CGcrypt)
    libyaml-dev     # navhostd's configuration file (CYAML)
    python3-venv    # the Varlink reference implementation used by the interop tests
    varlink-go      # varlink-go-certification, a second Varlink certification client for the interop tests
    golang-go       # builds navhost-bench's Go peer (Benchmarks/Peer/go)
    golang-github-varlink-go-dev # the Go Varlink implementation that peer is written on
    patchelf        # make deb: the packaged programs' run paths name the Swift runtime the package ships
    chromium        # headless, for the inspector page's browser test (Tests/NavHostInspectorTests)
    zsh             # the shells navctl's completion tests drive its generated scripts in (Tests/NavctlTests),
    fish            # and scripts/generate-completions.sh checks the zsh and fish scripts' syntax with
)

if $sdk_only; then
    apt_packages=(pkg-config python3 libjson-c-dev libsystemd-dev libgcrypt20-dev libyaml-dev)
fi

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

# The Python Varlink reference implementation (PyPI package `varlink`), for the interop and certification tests.
if ! $sdk_only && ! .venv/bin/python -c 'import varlink' >/dev/null 2>&1; then
    echo "install-deps: installing the Python varlink package into .venv"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check varlink
fi
