#!/usr/bin/env bash
# The journald handler against a REAL systemd-journald, started in a private mount namespace (tmpfs on /run/systemd,
# /run/log and /var/log/journal, so the host is untouched). NotifyProbe journal-check logs a multi-line message with
# the NavHost fields and an 8 MiB message (sent as a sealed memfd); journalctl must return both, whole.
# Needs root (unshare -m). Run it with `make journald-check`.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$(realpath "${BUILD_DIR:-.build/debug}")

if [[ ${1:-} != --inside ]]; then
    exec unshare -m --propagation private "$0" --inside
fi

for directory in /run/systemd /run/log /var/log/journal; do
    mkdir -p "$directory"
    mount -t tmpfs tmpfs "$directory"
done
/lib/systemd/systemd-journald &
journald=$!
trap 'kill $journald; wait $journald 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    [[ -S /run/systemd/journal/socket ]] && break
    sleep 0.05
done

"$build_dir/NotifyProbe" journal-check $((8 << 20))
journalctl --sync 2>/dev/null || kill -USR1 $journald

python3 - <<'PYTHON'
import json, subprocess, sys

def entries(*match):
    out = subprocess.run(["journalctl", "-o", "json", "--all", "--no-pager", *match],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line]

passed = failed = 0
def check(name, ok):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + name)
    passed, failed = passed + ok, failed + (not ok)

small = entries("SYSLOG_IDENTIFIER=navhost-journal-check", "NAVHOST_PLUGIN=Weather")
check("the multi-line entry arrived once", len(small) == 1)
entry = small[0] if small else {}
check("MESSAGE is whole, newlines included", entry.get("MESSAGE") == "Route refused\nsecond line\n\nfourth line")
check("PRIORITY is 4 (warning)", entry.get("PRIORITY") == "4")
check("CODE_FILE, CODE_LINE, CODE_FUNC name the call site",
      entry.get("CODE_FILE") == "NotifyProbe/JournalProbe.swift" and entry.get("CODE_LINE", "").isdigit()
      and entry.get("CODE_FUNC") == "run(largeMessageBytes:)")
check("NAVHOST_SESSION, NAVHOST_ROUTE, NAVHOST_CLIENT_PID are fields",
      (entry.get("NAVHOST_SESSION"), entry.get("NAVHOST_ROUTE"), entry.get("NAVHOST_CLIENT_PID"))
      == ("s-1", "weather.detail", "4242"))
check("journald trusts the sender's credentials (_PID set by journald)", entry.get("_PID", "").isdigit())

large = entries("SYSLOG_IDENTIFIER=navhost-journal-check", "NAVHOST_CHECK=large")
check("the 8 MiB entry arrived through its memfd", len(large) == 1)
message = large[0].get("MESSAGE") if large else None
check("its MESSAGE is whole", isinstance(message, str) and len(message) == 8 << 20
      and message.startswith("0123456789abcdef"))
print(f"journald-check: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYTHON
