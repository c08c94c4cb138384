#!/usr/bin/env bash
# Counts navhostd's task allocations (swift_task_alloc) per Send, by the function that makes them: runs the
# benchmark's pipelined phase against navhostd with task-alloc-shim.c preloaded, takes the table after a few seconds,
# and names the call sites (report.py). docs/architecture.md, session 20.
#
#   Benchmarks/Profiling/task-alloc/run.sh [BUILD_DIR]      (default .build/release, with its staged plugins)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
build=${1:-.build/release}
out=$(mktemp -d /tmp/navhost-task-alloc.XXXXXX)
cc -O2 -shared -fPIC -o "$out/task-alloc-shim.so" "$here/task-alloc-shim.c" -ldl
"$build/navhost-bench" --only pipelined --skip-one-core --build-dir "$build" --output "$out/results.json" \
    --daemon-wrapper "env LD_PRELOAD=$out/task-alloc-shim.so TASK_ALLOC_OUT=$out/table.txt" \
    >"$out/bench.log" 2>&1 &
bench=$!
daemon=
for _ in $(seq 100); do
    daemon=$(pgrep -P "$bench" -x navhostd || true)
    [[ -n $daemon ]] && break
    sleep 0.1
done
[[ -n $daemon ]] || { echo "navhostd did not start" >&2; exit 1; }
sleep 3
cp "/proc/$daemon/maps" "$out/maps.txt"
kill -USR2 "$daemon"
sleep 0.5
wait "$bench" || true
python3 "$here/report.py" "$out/table.txt" "$out/maps.txt"
echo "files: $out"
