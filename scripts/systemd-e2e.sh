#!/usr/bin/env bash
# End-to-end check of NavHost under a REAL systemd: a Debian 12 container booted with systemd-nspawn, into which
# `dpkg -i` installs the Debian packages `make deb-files` made of the build (navhost and navhost-sdk: the real
# navhostd, navctl, the example plugins, the units, sysusers.d and tmpfiles.d, the Swift runtime they need), exactly
# as on a device. The service runs with the hardening it ships with; only the watchdog part adds a drop-in
# (the shipped ExecStart= plus --enable-test-hooks, and WatchdogSec=3s). It checks what the unit tests cannot:
# the maintainer scripts (the user from sysusers.d, the units enabled and started), socket activation by the first
# client, Type=notify READY and STATUS, who may control and who may only read (navctl as two non-root users), dlopen
# of the plugins inside the sandbox, `systemctl reload` (RELOADING, then READY), journald's structured fields, a
# plugin unloaded by hand that stays so across `systemctl restart`, a
# watchdog restart after which the navigation stack is restored from StateDirectory=, a clean `systemctl stop`; then
# `dpkg --remove` and `dpkg --purge`, after which nothing of NavHost is left but its user and group.
#
# Each check prints PASS or FAIL (with what it saw); the script exits non-zero when any check failed. Needs root,
# debootstrap and systemd-container (installed when missing), and Debian's mirror on the first run: the container
# root is kept in $NSPAWN_DIR (.build-nspawn/ by default), and whatever a run changes inside the container lives in
# an overlay in memory and vanishes. There is no Swift toolchain in the container: the package brings the runtime
# libraries its programs link. Run it with `make systemd-e2e` (which makes the packages of BUILD_DIR into DEB_DIR);
# docs/systemd.md has what it checks and how long it takes, docs/packaging.md the packages.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=$(realpath "${BUILD_DIR:-.build/debug}")
deb_dir=$(realpath "${DEB_DIR:-$build_dir/deb}")
work=${NSPAWN_DIR:-.build-nspawn}
root=$work/root
machine=navhost-e2e-$$
debs=("$deb_dir"/navhost_*.deb "$deb_dir"/navhost-sdk_*.deb)
for deb in "${debs[@]}"; do
    [[ -f $deb ]] || { echo "systemd-e2e: $deb is missing; run make deb-files DEB_BUILD_DIR=…" >&2; exit 1; }
done
# Debian packages the container needs beyond minbase: systemd itself, and what the packages depend on, which
# `dpkg -i` does not fetch (the first of each set of alternatives): procps for ExecReload='s /bin/kill,
# init-system-helpers for deb-systemd-helper, the C libraries the programs link (json-c, libgcrypt, …).
mapfile -t depends < <(for deb in "${debs[@]}"; do dpkg-deb -f "$deb" Depends; done | tr ',' '\n' \
    | sed -E 's/\|.*//; s/\(.*\)//; s/ //g' | grep -v '^navhost' | sort -u)
packages=(systemd systemd-sysv dbus "${depends[@]}")
passed=0
failed=0
started=$SECONDS

check() {  # check NAME COMMAND...: runs the command, counts and prints the outcome; checks.log keeps what each saw
    local check_name=$1
    shift
    if "$@" >"$work/last.log" 2>&1; then
        passed=$((passed + 1))
        echo "PASS $check_name" | tee -a "$work/checks.log"
    else
        failed=$((failed + 1))
        echo "FAIL $check_name" | tee -a "$work/checks.log"
        sed 's/^/    /' "$work/last.log"
    fi
    sed 's/^/    /' "$work/last.log" >>"$work/checks.log"
}
# grep -q stops reading at the first match; with pipefail, the writer's SIGPIPE would then fail the pipeline.
contains() { grep "$@" >/dev/null; }

for tool in debootstrap:debootstrap systemd-nspawn:systemd-container; do
    if ! command -v "${tool%%:*}" >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq --no-install-recommends "${tool##*:}" >/dev/null \
            || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${tool##*:}" >/dev/null; }
    fi
done
mkdir -p "$work"
: >"$work/checks.log"
if [[ ! -x $root/lib/systemd/systemd ]]; then
    echo "systemd-e2e: creating the container root in $root with debootstrap (about a minute)"
    rm -rf "$root"
    debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" bookworm "$root" \
        >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    echo "systemd-e2e: container root ready after $((SECONDS - started)) s"
fi
missing=()
for package in "${packages[@]}"; do
    chroot "$root" dpkg-query -W -f='${Status}' "$package" 2>/dev/null | contains "install ok installed" \
        || missing+=("$package")
done
if ((${#missing[@]})); then
    chroot "$root" apt-get update -qq
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The user must come from the package's sysusers.d, not from an earlier run; the root must hold no NavHost (what
# the script installed into it before it used the packages).
chroot "$root" userdel navhost >/dev/null 2>&1 || true
chroot "$root" groupdel navhost >/dev/null 2>&1 || true
rm -rf "$root/usr/lib/navhost" "$root/etc/systemd/system/navhostd.service.d" "$root/var/lib/navhost" \
    "$root"/usr/lib/systemd/system/navhostd.* "$root"/usr/lib/{sysusers,tmpfiles}.d/navhost.conf \
    "$root"/usr/bin/{navhostd,navctl,navhost-plugin-tool} "$root/usr/share/doc/navhost"
[[ ! -e $root/opt/swift ]] || { echo "systemd-e2e: $root/opt/swift exists: the container must have no toolchain" >&2; exit 1; }

# --volatile=overlay: whatever the container changes lives in memory, so every run starts from the same root. The
# packages are bound read-only at /mnt/packages.
systemd-nspawn -q -D "$root" --boot --register=no --keep-unit -M "$machine" --bind-ro="$deb_dir:/mnt/packages" \
    --volatile=overlay --console=passive </dev/null >"$work/console.log" 2>&1 &
nspawn=$!
trap 'kill -TERM $nspawn 2>/dev/null; wait $nspawn 2>/dev/null || true' EXIT
leader=""
for _ in $(seq 100); do
    # nspawn's first child is transient; the container's init is the child that runs systemd.
    leader=$(pgrep -P "$nspawn" -x systemd || true)
    [[ -n $leader ]] && break
    sleep 0.1
done
[[ -n $leader ]] || { echo "systemd-e2e: the container did not start; see $work/console.log" >&2; exit 1; }
inside() { nsenter -t "$leader" -m -u -i -n -p -- "$@"; }
booted() {
    local state
    for _ in $(seq 300); do
        state=$(inside systemctl is-system-running --wait 2>/dev/null || true)
        [[ $state == running || $state == degraded ]] && return 0
        sleep 0.1
    done
    echo "systemd-e2e: the container did not boot (state: ${state:-none}); see $work/console.log" >&2
    return 1
}
booted
boot_done=$SECONDS
# PID 1 at debug level logs every notification it accepts and every state change of the service: the journal then
# shows READY=1, RELOADING=1 and STOPPING=1 as systemd saw them.
inside systemd-analyze set-log-level debug

socket=/run/navhost/io.navhost
unit=navhostd.service
show() { inside systemctl show -P "$1" $unit; }
main_pid() { show MainPID; }
is_active() { [[ $(inside systemctl is-active $unit) == active ]]; }
as_user() { local user=$1; shift; inside setpriv --reuid="$user" --regid="$user" --init-groups "$@"; }
navctl_as() { local user=$1 command=$2; shift 2; as_user "$user" navctl "$command" --socket $socket "$@"; }
cursor() { inside journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p'; }
journal_since() { inside journalctl -q --no-pager -u $unit --after-cursor="$1"; }
# Python programs that read navctl's and journalctl's JSON. Quoted here-documents: the shell changes nothing in them.
read -r -d '' stack_routes_program <<'PYTHON' || true
import json, sys
stack = json.load(sys.stdin)["snapshot"]["stack"]
print(" ".join(s["route"] + "".join(f"({k}={v})" for k, v in sorted(s["parameters"].items())) for s in stack))
PYTHON
read -r -d '' plugins_loaded_program <<'PYTHON' || true
import json, sys
plugins = {p["name"]: p for p in json.load(sys.stdin)["plugins"]}
assert sorted(plugins) == ["Home", "Products", "Settings", "UserProfile"], plugins
for name, plugin in plugins.items():
    assert plugin["state"] == "loaded", plugin
    # Every library is loaded from a private copy in the StateDirectory, never from the plugins folder.
    assert plugin["path"].startswith(f"/var/lib/navhost/plugin-images/{name}-"), plugin
    print(plugin["path"])
print("all four loaded from private copies of /usr/lib/navhost/plugins", file=sys.stderr)
PYTHON
read -r -d '' settings_reloaded_program <<'PYTHON' || true
import json, sys
settings = next(p for p in json.load(sys.stdin)["plugins"] if p["name"] == "Settings")
print(settings, file=sys.stderr)
assert settings["state"] == "loaded" and settings["path"].startswith("/var/lib/navhost/plugin-images/Settings-")
PYTHON
read -r -d '' journal_fields_program <<'PYTHON' || true
import json, os, sys
lines = [json.loads(line) for line in sys.stdin if line.strip()]
# The PID logs before the exec too: systemd's executor, as "(navhostd)" (and journald, which caches a PID's _EXE and
# _COMM for a few seconds, gives the daemon's first entries the executor's). What libraries write to stderr arrives
# as _TRANSPORT=stdout. The daemon's own entries are the native ones with its identifier.
entries = [e for e in lines if e["_TRANSPORT"] == "journal" and e.get("SYSLOG_IDENTIFIER") == "navhostd"]
print(len(entries), "native entries from navhostd of", len(lines), file=sys.stderr)
assert entries, "no native entries from navhostd"
def one(message, **fields):
    for entry in entries:
        if entry.get("MESSAGE") == message and all(entry.get(k) == v for k, v in fields.items()):
            return entry
    raise SystemExit(f"no entry {message!r} with {fields}")
for entry in entries:
    # Every entry the daemon logged came from the service user, with its level and call site.
    assert entry["_UID"] == os.environ["NAVHOST_UID"], entry
    assert entry["PRIORITY"] in "01234567" and entry["CODE_FILE"].endswith(".swift"), entry
    assert entry["CODE_LINE"].isdigit() and entry["CODE_FUNC"] and entry["MESSAGE"], entry
for plugin in ["Home", "Products", "Settings", "UserProfile"]:
    loaded = one("Loaded a plugin", NAVHOST_PLUGIN=plugin, PRIORITY="6")
    assert loaded["CODE_FILE"].endswith("PluginRegistry+Loading.swift"), loaded
opened = one("Opened session", NAVHOST_SESSION="main", NAVHOST_ROUTE="home.main")
refused = one("Refused a control call: the client may only read", NAVHOST_CLIENT_PID=os.environ["ALICE_PID"])
assert refused["NAVHOST_CLIENT_UID"] == os.environ["ALICE_UID"], refused
assert refused["VARLINK_METHOD"] == "io.navhost.Navigation.Navigate", refused
for entry in (loaded, opened, refused):
    print({k: v for k, v in entry.items() if not k.startswith("_")}, file=sys.stderr)
PYTHON

# The stack as "route(key=value) route …", root first.
stack_routes() { navctl_as root stack --json | python3 -c "$stack_routes_program"; }
wait_until_active() {
    for _ in $(seq 200); do
        is_active && return 0
        sleep 0.1
    done
    inside systemctl status --no-pager $unit
    return 1
}

shipped_exec_start=""
dpkg_installs() {
    ! inside getent passwd navhost || { echo "user navhost exists before the installation"; return 1; }
    local deb in_container=()
    for deb in "${debs[@]}"; do in_container+=("/mnt/packages/$(basename "$deb")"); done
    inside dpkg -i "${in_container[@]}" || return 1
    inside dpkg-query -W -f='${Package} ${Version} ${Status}\n' navhost navhost-sdk | tee /dev/stderr \
        | grep -c ' install ok installed$' | grep -qx 2 || return 1
    shipped_exec_start=$(inside grep -m1 '^ExecStart=' /usr/lib/systemd/system/$unit)
    [[ -n $shipped_exec_start ]] && inside test -f /usr/share/man/man8/navhostd.8.gz \
        && inside test -f /usr/share/man/man1/navctl.1.gz && inside test -f /usr/share/man/man5/navhostd.conf.5.gz \
        || return 1
    local completion
    for completion in /usr/share/bash-completion/completions/{navctl,navhost-plugin-tool} \
        /usr/share/zsh/vendor-completions/{_navctl,_navhost-plugin-tool} \
        /usr/share/fish/vendor_completions.d/{navctl,navhost-plugin-tool}.fish; do
        inside test -f "$completion" || { echo "not installed: $completion"; return 1; }
    done
    # The units' Documentation= and the README that GetInfo names are installed files.
    local documentation
    for documentation in $(inside systemctl show -P Documentation $unit navhostd.socket) \
        file:/usr/share/doc/navhost/README.md; do
        inside test -f "${documentation#file:}" || { echo "not installed: $documentation"; return 1; }
    done
}
sysusers() {
    inside getent passwd navhost && inside getent group navhost \
        && [[ $(inside stat -c '%a %U %G' /var/lib/navhost) == "700 navhost navhost" ]]
}
enabled_and_started() {
    local state
    for state in is-enabled is-active; do
        inside systemctl $state navhostd.socket $unit | tr '\n' ' ' | tee /dev/stderr \
            | contains -x "$([[ $state == is-enabled ]] && echo 'enabled enabled ' || echo 'active active ')" || return 1
    done
    echo >&2
    inside ls -l /etc/systemd/system/sockets.target.wants/navhostd.socket \
        /etc/systemd/system/multi-user.target.wants/$unit
}
no_toolchain() {
    # The runtime comes from the package: no /opt/swift, navhostd's libraries all found, libswiftCore in the package.
    [[ ! -e $root/opt/swift ]] && ! inside test -e /opt/swift || { echo "/opt/swift in the container"; return 1; }
    # ldd takes $ORIGIN from the path it is given (the kernel, from the real one): the files, not /usr/bin's links.
    inside ldd /usr/lib/navhost/navhostd /usr/lib/navhost/navctl /usr/lib/navhost/navhost-plugin-tool \
        | tee /dev/stderr | { ! grep 'not found'; } && inside ldd /usr/lib/navhost/navhostd \
        | contains -E '^\s*libswiftCore.so => /usr/lib/navhost/swift-runtime/libswiftCore.so ' \
        && inside navhost-plugin-tool list /usr/lib/navhost/plugins | tee /dev/stderr | contains UserProfile
}
socket_listens() {
    # postinst started both units: the service is stopped so that a client starts it through the socket.
    inside systemctl stop $unit \
        && [[ $(inside systemctl is-active navhostd.socket) == active ]] \
        && [[ $(inside systemctl is-active $unit || true) == inactive ]]
}
socket_modes() { [[ $(inside stat -c '%a %U' $socket /run/navhost | tr '\n' ' ') == "666 root 755 root " ]]; }
first_client_starts_service() {
    [[ $(inside systemctl is-active $unit || true) == inactive ]] || { echo "already running"; return 1; }
    # The reply may reach the client before systemd has read READY=1 from the notification socket.
    navctl_as alice stack | tee /dev/stderr | contains '=> s1  home.main' && wait_until_active
}
ready_and_status() {
    local properties status pid
    properties=$(inside systemctl show -p Type -p NotifyAccess -p ActiveState -p SubState -p StatusText $unit)
    echo "$properties"
    grep -qx 'Type=notify' <<<"$properties" && grep -qx 'NotifyAccess=main' <<<"$properties" \
        && grep -qx 'ActiveState=active' <<<"$properties" && grep -qx 'SubState=running' <<<"$properties" \
        && grep -Eqx 'StatusText=4 plugins loaded, 0 quarantined; 1 session; [0-9]+ clients?' <<<"$properties" \
        || return 1
    # systemd took READY=1 and the STATUS line from the main process itself.
    pid=$(main_pid)
    inside journalctl -q --no-pager -u $unit | tee /dev/stderr \
        | contains "Got notification message from PID $pid (READY=1, STATUS=4 plugins loaded"
}
sandboxed() {
    local pid status
    pid=$(main_pid)
    status=$(inside cat "/proc/$pid/status")
    grep -E '^(Uid|Gid|CapEff|CapBnd|NoNewPrivs|Seccomp):' <<<"$status"
    local uid
    uid=$(inside id -u navhost)
    grep -Eq "^Uid:\s+$uid\s+$uid\s+$uid\s+$uid$" <<<"$status" && grep -Eq '^CapEff:\s+0+$' <<<"$status" \
        && grep -Eq '^CapBnd:\s+0+$' <<<"$status" && grep -Eq '^NoNewPrivs:\s+1$' <<<"$status" \
        && grep -Eq '^Seccomp:\s+2$' <<<"$status" \
        && [[ $(show MemoryDenyWriteExecute) == yes && $(show ProtectSystem) == strict ]] || return 1
    # The filter at work: libdispatch's setpriority (in @resources) fails with the unit's SystemCallErrorNumber=EPERM
    # (errno 1). Outside the sandbox the same daemon, as an unprivileged user, logs no such line.
    inside journalctl -q --no-pager -o cat _SYSTEMD_UNIT=$unit _PID="$pid" | tee /dev/stderr \
        | contains -E '^Failed to set thread priority for worker thread: pqc=0x[0-9a-f]+ errno=1$'
}
plugins_loaded() {
    local pid name
    pid=$(main_pid)
    local images image
    images=$(navctl_as root plugins --json | python3 -c "$plugins_loaded_program") || return 1
    for image in $images; do inside grep -q "$image" "/proc/$pid/maps" || return 1; done
}
member_controls() {
    navctl_as bob navigate settings.main && [[ $(stack_routes) == "home.main settings.main" ]]
}
other_user_reads() {
    navctl_as alice stack | contains '=> s2  settings.main' && navctl_as alice plugins | contains Settings \
        && navctl_as alice routes >/dev/null
}
alice_pid=""
other_user_cannot_control() {
    local output status=0
    # The shell prints its PID, then becomes navctl: the PID the daemon sees (and logs) is that one.
    output=$(as_user alice sh -c "echo \$\$; exec navctl navigate --socket $socket products.list 2>&1") || status=$?
    echo "$output (exit status $status)"
    alice_pid=$(head -1 <<<"$output")
    ((status == 2)) && grep -q '^Error: org.varlink.service.PermissionDenied' <<<"$output" \
        && [[ $(stack_routes) == "home.main settings.main" ]]
}
runtime_directory() { [[ $(inside stat -c '%a %U' /run/navhostd) == "700 navhost" ]]; }
reloads() {
    local before pid_before cursor_before lines
    pid_before=$(main_pid)
    cursor_before=$(cursor)
    before=$(stack_routes)
    # A new build of Settings: different bytes, so a new digest in its manifest.
    inside sh -c 'cd /usr/lib/navhost/plugins/Settings && printf "\nnew build\n" >>libSettingsFeature.so &&
        sed -i "s/\"sha256\": \"[0-9a-f]*\"/\"sha256\": \"$(sha256sum libSettingsFeature.so | cut -d" " -f1)\"/" \
        manifest.json'
    inside systemctl reload $unit && wait_until_active || return 1
    lines=$(journal_since "$cursor_before")
    echo "$lines" | grep -E 'notification message|Changed|Reload' >&2
    # RELOADING=1 took the service to "reload"; READY=1 brought it back to "running"; same process throughout.
    grep -q "Got notification message from PID $pid_before (RELOADING=1, MONOTONIC_USEC=" <<<"$lines" \
        && sed -n '/Changed running -> reload/,$p' <<<"$lines" | contains 'Changed reload -> running' \
        && [[ $(main_pid) == "$pid_before" ]] \
        && [[ $(stack_routes) == "$before" ]] \
        && navctl_as root plugins --json | python3 -c "$settings_reloaded_program"
}
user_profile_path() {
    navctl_as root plugins --json \
        | python3 -c 'import json,sys; print(next(p["path"] for p in json.load(sys.stdin)["plugins"] if p["name"] == "UserProfile"))'
}
follows_folder() {
    local before after
    before=$(user_profile_path)
    # A new build of UserProfile, deployed by copy-then-rename, with no reload asked for: inotify under the hardening.
    inside sh -c 'cd /usr/lib/navhost/plugins && rm -rf .UserProfile.in .UserProfile.old &&
        cp -a UserProfile .UserProfile.in && cd .UserProfile.in && printf "\nanother build\n" >>libUserProfileFeature.so &&
        sed -i "s/\"sha256\": \"[0-9a-f]*\"/\"sha256\": \"$(sha256sum libUserProfileFeature.so | cut -d" " -f1)\"/" \
        manifest.json && cd .. && mv UserProfile .UserProfile.old && mv .UserProfile.in UserProfile &&
        rm -rf .UserProfile.old'
    for _ in $(seq 50); do
        after=$(user_profile_path)
        if [[ $after != "$before" ]]; then
            echo "UserProfile: $before -> $after" >&2
            return 0
        fi
        sleep 0.1
    done
    return 1
}
state_written() {
    inside ls -lR /var/lib/navhost
    [[ -n $(inside find /var/lib/navhost -type f -name '*main*') ]] \
        && [[ -z $(inside find /var/lib/navhost ! -user navhost) ]]
}
journal_fields() {
    local navhost_uid alice_uid
    navhost_uid=$(inside id -u navhost) && alice_uid=$(inside id -u alice) && [[ -n $alice_pid ]] || return 1
    inside journalctl -q --no-pager -o json _SYSTEMD_UNIT=$unit _PID="$(main_pid)" \
        | NAVHOST_UID=$navhost_uid ALICE_UID=$alice_uid ALICE_PID=$alice_pid python3 -c "$journal_fields_program"
}

check "dpkg -i installs navhost and navhost-sdk into a system without NavHost, man pages, completions and documents in place" \
    dpkg_installs
check "postinst: systemd-sysusers created user and group navhost, systemd-tmpfiles /var/lib/navhost (0700)" sysusers
check "postinst: deb-systemd-helper enabled navhostd.socket and navhostd.service, deb-systemd-invoke started them" \
    enabled_and_started
check "no Swift toolchain in the container: the programs link the package's runtime in /usr/lib/navhost" no_toolchain
inside useradd -M alice
inside useradd -M -G navhost bob
check "navhostd.socket is active and listening; navhostd.service is not started yet" socket_listens
check "the socket is world-connectable (0666) in a root-owned 0755 directory" socket_modes
check "the first client call (navctl stack as a non-root user) starts navhostd.service" first_client_starts_service
check "Type=notify: systemd took READY=1 from the main process; StatusText is the daemon's STATUS line" \
    ready_and_status
check "the service runs as navhost: no capabilities, no new privileges, the seccomp filter refuses with EPERM" sandboxed
check "the four example plugins are dlopen'ed (from private copies) under the hardening" plugins_loaded
check "a member of group navhost controls: navctl navigate settings.main succeeds" member_controls
check "a user outside the group reads: navctl stack, plugins and routes succeed" other_user_reads
check "a user outside the group cannot control: navctl navigate fails with PermissionDenied (exit 2)" \
    other_user_cannot_control
check "the RuntimeDirectory is /run/navhostd (0700, navhost), not the socket's directory" runtime_directory
check "systemctl reload: RELOADING=1, then READY=1; a new build of Settings is loaded from a fresh image" reloads
check "the daemon follows /usr/lib/navhost/plugins: a new build renamed into place is loaded, no reload asked" \
    follows_folder
check "sessions are written to StateDirectory /var/lib/navhost, owned by navhost" state_written
check "journald has PRIORITY, MESSAGE, CODE_*, NAVHOST_PLUGIN/SESSION/ROUTE/CLIENT_PID from the native protocol" \
    journal_fields

# After journal_fields, which reads the log of the process that served alice: this check restarts the daemon.
read -r -d '' user_profile_state_program <<'PYTHON' || true
import json, os, sys
states = {p["name"]: p["state"] for p in json.load(sys.stdin)["plugins"]}
print(states, file=sys.stderr)
assert states.get("UserProfile") == os.environ["EXPECTED"], states
PYTHON
unload_survives_restart() {
    navctl_as bob plugins unload UserProfile | contains 'unloaded UserProfile' \
        && inside systemctl restart $unit && wait_until_active \
        && navctl_as root plugins --json | EXPECTED=removed python3 -c "$user_profile_state_program" \
        && [[ $(inside stat -c '%U %a' /var/lib/navhost/plugin-overrides.json) == "navhost 600" ]] \
        && navctl_as bob plugins load /usr/lib/navhost/plugins/UserProfile | contains 'loaded UserProfile' \
        && inside systemctl restart $unit && wait_until_active \
        && navctl_as root plugins --json | EXPECTED=loaded python3 -c "$user_profile_state_program"
}
check "a plugin a group member unloads stays unloaded across systemctl restart, until loaded again" \
    unload_survives_restart
bad_drop_in=/etc/navhost/navhostd.conf.d/90-e2e-bad.conf
# A drop-in the daemon refuses: a limit that is not a number.
write_bad_drop_in() {
    inside sh -c "mkdir -p ${bad_drop_in%/*} && printf 'limits:\n  max-connections: lots\n' >$bad_drop_in"
}
refused_reload_fails() {
    local pid_before status=0 cursor_before
    pid_before=$(main_pid)
    cursor_before=$(cursor)
    write_bad_drop_in
    inside systemctl reload $unit || status=$?
    inside rm -f $bad_drop_in
    echo "systemctl reload: exit status $status" >&2
    ((status != 0)) && is_active && [[ $(main_pid) == "$pid_before" ]] \
        && journal_since "$cursor_before" | contains 'max-connections: expected a whole number' \
        && navctl_as root stack >/dev/null
}
refused_start_not_restarted() {
    local status=0
    write_bad_drop_in
    inside systemctl restart $unit || status=$?
    sleep 3
    local result restarts code
    result=$(show Result) restarts=$(show NRestarts) code=$(show ExecMainStatus)
    echo "systemctl restart: exit status $status; Result=$result NRestarts=$restarts ExecMainStatus=$code" >&2
    inside rm -f $bad_drop_in
    inside rmdir "${bad_drop_in%/*}"
    inside systemctl reset-failed $unit
    ((status != 0)) && [[ $result == exit-code && $restarts == 0 && $code == 78 ]] \
        && [[ $(inside systemctl is-active navhostd.socket) == active ]] \
        && navctl_as root stack >/dev/null && wait_until_active
}
check "systemctl reload of a configuration the daemon refuses fails, with the reason; the daemon serves on, same process" \
    refused_reload_fails
check "a configuration refused at start fails the service once, status 78, no restarts; the socket stays listening" \
    refused_start_not_restarted

# The watchdog: the shipped unit plus a drop-in that turns on the test hooks (SIGUSR1 wedges the MainActor, the
# executor that pings) and shortens WatchdogSec=. The hardening stays as shipped.
printf '[Service]\nExecStart=\n%s --enable-test-hooks\nWatchdogSec=3s\n' "$shipped_exec_start" \
    | inside sh -c "mkdir -p /etc/systemd/system/$unit.d && cat >/etc/systemd/system/$unit.d/50-e2e-watchdog.conf"
inside systemctl daemon-reload
routes_before=""
restarts_before=""
pid_before=""
with_test_hooks() {
    inside systemctl restart $unit && wait_until_active || return 1
    show ExecStart | tee /dev/stderr | contains -- '--enable-test-hooks' && [[ $(show WatchdogUSec) == 3s ]] \
        && [[ $(show MemoryDenyWriteExecute) == yes ]] \
        && navctl_as bob navigate products.list >/dev/null \
        && navctl_as bob navigate products.detail productID=p3 >/dev/null \
        && routes_before=$(stack_routes) \
        && [[ $routes_before == "home.main settings.main products.list products.detail(productID=p3)" ]] \
        && restarts_before=$(show NRestarts) && pid_before=$(main_pid)
}
watchdog_restarts() {
    local cursor_before wedged lines
    [[ -n $pid_before && -n $restarts_before ]] || { echo "the previous check did not record the daemon"; return 1; }
    cursor_before=$(cursor)
    wedged=$SECONDS
    inside systemctl kill -s USR1 --kill-who=main $unit
    for _ in $(seq 600); do
        if [[ $(show NRestarts) == $((restarts_before + 1)) ]] && is_active && [[ $(main_pid) != "$pid_before" ]]; then
            echo "restarted $((SECONDS - wedged)) s after SIGUSR1; main PID $pid_before -> $(main_pid)"
            lines=$(journal_since "$cursor_before")
            grep -E 'Watchdog timeout|Main process exited|Failed with|Scheduled restart|Backtrac' <<<"$lines"
            # The watchdog's SIGABRT ends the process itself; no SIGKILL after TimeoutAbortSec= was needed.
            grep -q 'Watchdog timeout (limit 3s)!' <<<"$lines" \
                && grep -q 'Main process exited, code=killed, status=6/ABRT' <<<"$lines" \
                && grep -q "Failed with result 'watchdog'" <<<"$lines" \
                && ((SECONDS - wedged < 15))
            return
        fi
        sleep 0.1
    done
    inside systemctl status --no-pager $unit
    return 1
}
stack_restored() {
    local after
    [[ -n $routes_before ]] || { echo "the previous checks did not record a stack"; return 1; }
    after=$(stack_routes)
    echo "before: $routes_before"$'\n'"after:  $after"
    [[ $after == "$routes_before" ]]
}
stop_seconds=""
stops_cleanly() {
    local cursor_before pid stop_started lines
    cursor_before=$(cursor)
    pid=$(main_pid)
    stop_started=$SECONDS
    inside systemctl stop $unit 2>/dev/null || return 1
    stop_seconds=$((SECONDS - stop_started))
    lines=$(journal_since "$cursor_before")
    grep -E 'notification|SIG|Succeeded|Deactivated|exited' <<<"$lines" >&2
    echo "stopped in ${stop_seconds} s (TimeoutStopSec=$(show TimeoutStopUSec))"
    [[ $(show Result) == success && $(show ExecMainCode) == 1 && $(show ExecMainStatus) == 0 ]] \
        && grep -q "Got notification message from PID $pid (STOPPING=1)" <<<"$lines" \
        && ! grep -q SIGKILL <<<"$lines" \
        && ((stop_seconds < 20))
}

check "with the test-hooks drop-in: shipped hardening, WatchdogSec=3s; navctl builds a stack of four" with_test_hooks
check "a wedged MainActor stops the pings: systemd's watchdog kills navhostd and Restart=on-failure restarts it" \
    watchdog_restarts
check "after the restart the stack is the same, restored from StateDirectory" stack_restored
check "systemctl stop: STOPPING=1, exit status 0, no SIGKILL, within TimeoutStopSec" stops_cleanly

# The packages go: removed first (with the daemon running), then purged. The watchdog drop-in is the test's, an
# administrator's file that no package owns: it goes before.
inside rm -rf "/etc/systemd/system/$unit.d"
inside systemctl daemon-reload
# The conffiles the package declares (none when systemd/navhostd.conf was not in the tree it was built from).
conffiles=$(dpkg-deb -I "${debs[0]}" conffiles 2>/dev/null || true)
package_states() { inside dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' navhost navhost-sdk 2>/dev/null || true; }
absent() {  # absent PATH...: none of the paths exists in the container (a dangling link counts as existing)
    local path status=0
    for path; do
        if inside test -e "$path" -o -L "$path"; then echo "still there: $path"; status=1; fi
    done
    return $status
}
in_container_debs=()
for deb in "${debs[@]}"; do in_container_debs+=("/mnt/packages/$(basename "$deb")"); done
reinstall_keeps_choices() {
    # An administrator disables the daemon (Also= takes the socket along); an upgrade (here the same version again)
    # keeps that, and restarts nothing it would start. Enabled again, the next upgrade keeps them enabled.
    local enabled
    inside systemctl disable $unit 2>&1 && inside dpkg -i "${in_container_debs[@]}" || return 1
    enabled=$(inside systemctl is-enabled navhostd.socket $unit | tr '\n' ' ' || true)
    echo "after disable and upgrade: $enabled"
    [[ $enabled == "disabled disabled " ]] || return 1
    inside systemctl enable $unit 2>&1 && inside dpkg -i "${in_container_debs[@]}" || return 1
    enabled=$(inside systemctl is-enabled navhostd.socket $unit | tr '\n' ' ')
    echo "after enable and upgrade: $enabled"
    [[ $enabled == "enabled enabled " && $(inside systemctl is-active navhostd.socket) == active ]] \
        && navctl_as alice stack | contains 'home.main' && wait_until_active
}
package_files=(/usr/lib/navhost /usr/bin/navhostd /usr/bin/navctl /usr/bin/navhost-plugin-tool
    /usr/lib/systemd/system/navhostd.socket /usr/lib/systemd/system/$unit /usr/lib/sysusers.d/navhost.conf
    /usr/lib/tmpfiles.d/navhost.conf /usr/share/doc/navhost /usr/share/doc/navhost-sdk
    /usr/share/man/man8/navhostd.8.gz /usr/share/man/man1/navctl.1.gz /usr/share/man/man5/navhostd.conf.5.gz
    /usr/share/bash-completion/completions/navctl /usr/share/zsh/vendor-completions/_navctl
    /usr/share/fish/vendor_completions.d/navctl.fish /usr/share/bash-completion/completions/navhost-plugin-tool
    /usr/share/zsh/vendor-completions/_navhost-plugin-tool /usr/share/fish/vendor_completions.d/navhost-plugin-tool.fish)
dpkg_removes() {
    local conffile
    inside systemctl start $unit && wait_until_active && is_active || return 1
    inside dpkg --remove navhost-sdk navhost || return 1
    # navhost keeps its configuration (and a postrm to purge it): "rc"; navhost-sdk has none and is gone.
    [[ $(package_states | tee /dev/stderr | grep -v ' [pu]n ') == "navhost rc " ]] || return 1
    # prerm stopped both units; postrm masked them (the enablement links stay until purge, inert).
    [[ $(inside systemctl is-active navhostd.socket $unit | tr '\n' ' ') == "inactive inactive " ]] || return 1
    absent "${package_files[@]}" || return 1
    # What remove keeps: the configuration and the state.
    for conffile in $conffiles; do inside test -f "$conffile" || { echo "$conffile is gone"; return 1; }; done
    inside ls -la /var/lib/navhost /etc/systemd/system/sockets.target.wants
    inside test -f /var/lib/navhost/sessions/main.json
}
dpkg_purges() {
    local leftovers
    inside dpkg --purge navhost-sdk navhost || return 1
    [[ -z $(package_states | grep -v ' [pu]n ') ]] || { package_states; return 1; }
    absent "${package_files[@]}" $conffiles /etc/navhost /var/lib/navhost /run/navhost /run/navhostd \
        /etc/systemd/system/sockets.target.wants/navhostd.socket /etc/systemd/system/multi-user.target.wants/$unit \
        || return 1
    # Anything named after NavHost or owned by its user, anywhere but /proc and /sys: nothing.
    leftovers=$(inside find / /run /tmp -xdev \( -path /proc -o -path /sys \) -prune -o \
        \( -name '*navhost*' -o -user navhost -o -group navhost \) -print)
    echo "left behind: ${leftovers:-nothing}"
    [[ -z $leftovers ]] || return 1
    # What stays, by design (docs/packaging.md): the system user and group.
    inside getent passwd navhost && inside getent group navhost
}
check "dpkg -i again (an upgrade) keeps an administrator's disable, and an enable; the socket still starts the daemon" \
    reinstall_keeps_choices
check "dpkg --remove: prerm stops the running daemon and its socket; programs and units go, state and conffiles stay" \
    dpkg_removes
check "dpkg --purge: conffiles, /var/lib/navhost, the enablement links go; only the user and group navhost stay" \
    dpkg_purges

echo "systemd-e2e: $passed passed, $failed failed in $((SECONDS - started)) s" \
    "(container up after $((boot_done - started)) s)"
((failed == 0))
