#!/usr/bin/env bash
# End-to-end check of systemd/ under a REAL systemd: a Debian container booted with systemd-nspawn, NavHost installed
# into it with `make install-files`, and NotifyProbe (Tests/Fixtures) standing in for navhostd with navhostd's
# command line. It exercises what the unit tests cannot: sysusers at boot, socket activation, Type=notify, reload,
# journald's fields, non-root clients and their credentials, a watchdog restart, and dlopen of a Swift plugin under
# the service's hardening (with and without MemoryDenyWriteExecute=).
#
# Needs root, debootstrap and systemd-container (installed when missing), and Debian's mirror for the first run
# (the container root is kept in $NSPAWN_DIR, .build-nspawn/ by default). Run it with `make systemd-e2e`.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-.build/debug}
work=${NSPAWN_DIR:-.build-nspawn}
root=$work/root
machine=navhost-e2e-$$
passed=0
failed=0

check() {  # check NAME COMMAND...: runs the command, counts and prints the outcome
    local name=$1
    shift
    if "$@" >"$work/last.log" 2>&1; then
        passed=$((passed + 1))
        echo "PASS $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name"
        sed 's/^/    /' "$work/last.log"
    fi
}

for tool in debootstrap:debootstrap systemd-nspawn:systemd-container; do
    if ! command -v "${tool%%:*}" >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${tool##*:}"
    fi
done
mkdir -p "$work"
if [[ ! -x $root/lib/systemd/systemd ]]; then
    echo "systemd-e2e: creating the container root in $root (about a minute)"
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,procps,libjson-c5 bookworm "$root" \
        >"$work/debootstrap.log"
fi
if ! chroot "$root" dpkg -s libjson-c5 >/dev/null 2>&1; then
    chroot "$root" apt-get install -y -qq libjson-c5 >/dev/null
fi

# The user must come from sysusers.d at boot, not from an earlier run.
chroot "$root" userdel navhost >/dev/null 2>&1 || true

# A fresh install, with the probe as navhostd and the probe plugin as the only plugin.
rm -rf "$root/usr/lib/navhost" "$root/etc/systemd/system/navhostd.service.d" "$root/var/lib/navhost"
make --no-print-directory install-files DESTDIR="$(realpath "$root")" BUILD_DIR="$(realpath "$build_dir")" >/dev/null
install -m 0755 "$build_dir/NotifyProbe" "$root/usr/lib/navhost/notify-probe"
printf '#!/bin/sh\nexec /usr/lib/navhost/notify-probe serve "$@"\n' >"$root/usr/lib/navhost/navhostd"
install -m 0755 "$build_dir/libProbePlugin.so" "$root/usr/lib/navhost/plugins/"
mkdir -p "$root/etc/systemd/system/navhostd.service.d"
printf '[Service]\nWatchdogSec=3s\n' >"$root/etc/systemd/system/navhostd.service.d/50-e2e.conf"

# --volatile=overlay: whatever the container changes lives in memory, so every run starts from the same root.
systemd-nspawn -q -D "$root" --boot --register=no --keep-unit -M "$machine" --bind-ro=/opt/swift --volatile=overlay \
    --console=passive </dev/null >"$work/console.log" 2>&1 &
nspawn=$!
trap 'kill -TERM $nspawn 2>/dev/null; wait $nspawn 2>/dev/null || true' EXIT
leader=""
for _ in $(seq 100); do
    # nspawn's first child is transient; the container's init is the child that runs systemd.
    leader=$(pgrep -P "$nspawn" -x systemd || true)
    [[ -n $leader ]] && break
    sleep 0.1
done
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

probe=/usr/lib/navhost/notify-probe
socket=/run/navhost/io.navhost
status_text() { inside systemctl show -P StatusText navhostd.service; }
is_active() { [[ $(inside systemctl is-active navhostd.service) == active ]]; }
as_user() { local user=$1; shift; inside setpriv --reuid="$user" --regid="$user" --init-groups "$@"; }
journal_json() { inside journalctl -q -o json -u navhostd.service NAVHOST_PLUGIN=Probe; }

socket_modes() { [[ $(inside stat -c '%a %U' $socket /run/navhost | tr '\n' ' ') == "666 root 755 root " ]]; }
alice_connects() {
    as_user alice $probe connect $socket | tee /dev/stderr \
        | grep -qx "pid=[0-9]* uid=$(inside id -u alice) gid=$(inside id -g alice) control=false plugins=Probe .*"
}
bob_controls() { as_user bob $probe connect $socket | tee /dev/stderr | grep -q 'control=true'; }
notify_ready() { is_active && status_text | tee /dev/stderr | grep -qx 'Serving 1 plugin(s) \[Probe\], 0 reload(s)'; }
reloads() { inside systemctl reload navhostd.service && status_text | tee /dev/stderr | grep -q ', 1 reload(s)' && is_active; }
state_written() {
    inside cat /var/lib/navhost/state.txt | grep -qx 'reloads=1 plugins=Probe' \
        && [[ $(inside stat -c %U /var/lib/navhost/state.txt) == navhost ]]
}
journal_fields() {
    local json
    json=$(journal_json)
    echo "$json" | head -c 3000 >&2
    grep -q '"NAVHOST_ROUTE":"probe.main"' <<<"$json" \
        && grep -q '"MESSAGE":"Plugin loaded\\nfrom /usr/lib/navhost/plugins/libProbePlugin.so"' <<<"$json" \
        && grep -q '"CODE_FILE":"NotifyProbe/ServeProbe.swift"' <<<"$json" \
        && grep -q '"CODE_FUNC":"loadPlugins()"' <<<"$json" \
        && grep -q '"SYSLOG_IDENTIFIER":"navhostd"' <<<"$json" \
        && grep -q '"PRIORITY":"6"' <<<"$json"
}
restarted() {
    for _ in $(seq 300); do
        [[ $(inside systemctl show -P NRestarts navhostd.service) == 1 ]] && is_active && return 0
        sleep 0.1
    done
    inside systemctl status navhostd.service
    return 1
}
watchdog_in_journal() { inside journalctl -q -u navhostd.service | grep 'Watchdog timeout'; }
stops_cleanly() {
    inside systemctl stop navhostd.service && [[ $(inside systemctl show -P Result navhostd.service) == success ]]
}
syscall_filter() { as_user alice $probe connect $socket | tee /dev/stderr | grep -q ' setpriority=refused$'; }
mdwe_in_force() { as_user alice $probe connect $socket | tee /dev/stderr | grep -q ' plugins=Probe wx=refused '; }

check "sysusers.d created user and group navhost at boot" inside getent passwd navhost
inside id alice >/dev/null 2>&1 || inside useradd -M alice
inside id bob >/dev/null 2>&1 || inside useradd -M -G navhost bob
check "navhostd.socket starts and listens" inside systemctl enable --now navhostd.socket
check "the socket is world-connectable (0666) in a root-owned 0755 directory" socket_modes
check "a non-root client activates the service and is seen with its real uid and gid" alice_connects
check "a member of group navhost may control (SO_PEERCRED and SO_PEERGROUPS see real ids)" bob_controls
check "MemoryDenyWriteExecute= is in force (W+X mappings refused), and the Swift plugin loaded all the same" \
    mdwe_in_force
check "the system call filter is in force (@resources: setpriority is refused)" syscall_filter
check "Type=notify: active after READY, with the STATUS line" notify_ready
check "the RuntimeDirectory is navhostd, not the socket's directory" inside test -d /run/navhostd
check "systemctl reload runs ExecReload; the daemon reports READY again" reloads
check "state is written to StateDirectory, owned by navhost" state_written
check "journald has the structured fields and the multi-line message whole" journal_fields

# Wedge the MainActor: the pings stop and systemd restarts the service after WatchdogSec=3s.
inside systemctl kill -s USR1 --kill-who=main navhostd.service
check "a wedged MainActor stops the pings and systemd restarts the service" restarted
check "the journal names the watchdog as the reason" watchdog_in_journal
check "systemctl stop: STOPPING and a clean exit" stops_cleanly

echo "systemd-e2e: $passed passed, $failed failed"
((failed == 0))
