#!/usr/bin/env bash
# System calls per intent round trip in navhostd, counted by strace (all its threads), per call.
#
#   Benchmarks/Profiling/syscalls.sh [BUILD_DIR] [PLUGINS] [N1] [N2]
#   INTENT=changing Benchmarks/Profiling/syscalls.sh ...
#   PHASE=pipelined Benchmarks/Profiling/syscalls.sh ...
#
# Runs the benchmark's round-trip phase twice, with N1 and N2 calls, against navhostd under `strace -f -c`, and
# divides the difference of each system call's count between the two runs by N2 - N1: start-up, warm-up, the other
# phases' set-up and the daemon's idle ticks (the stall detector's, about four a second) mostly cancel out; what is
# left of them shows as a fraction well below one per call. The phases and counts are callgrind.sh's (see there); a
# lone steady `Send` is three calls when nothing else is going on: `epoll_wait`, `read`, `write`.
# Only the counts are printed: strace's times mean little. The counts depend on the load only where calls share a
# system call (how many pipelined calls one `read` brings, how many changes one `fdatasync` covers).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-.build/release}
plugins=${2:-$build/plugins}
n1=${3:-2000}
n2=${4:-10000}
out=$(mktemp -d /tmp/navhost-syscalls.XXXXXX)

for calls in "$n1" "$n2"; do
    if [ "${PHASE:-round-trip}" = pipelined ]; then counts=(--pipelined-calls "$calls");
    elif [ "${INTENT:-steady}" = changing ]; then counts=(--round-trips 500 --changing-round-trips "$calls"); else
        counts=(--round-trips "$calls"); fi
    if ! SWIFT_BACKTRACE=enable=no "$build/navhost-bench" --quick --build-dir "$build" --plugins "$plugins" \
        --only "${PHASE:-round-trip}" "${counts[@]}" --output "$out/results-$calls.json" \
        --daemon-wrapper "strace -f -c -q -o $out/strace.$calls" > "$out/bench-$calls.log"; then
        echo "syscalls.sh: navhost-bench failed in the run of $calls; its output:" >&2
        cat "$out/bench-$calls.log" >&2
        exit 1
    fi
done

# strace -c's table: the count is the fourth column, or the fifth after an errors column; the name is the last.
counts() { awk '$NF ~ /^[a-z_0-9]+$/ && $NF != "syscall" && $NF != "total" { print $NF, $4 }' "$1"; }
# Each pipelined run of N calls follows an untimed one of N / 20 (navhost-bench's warm-up): 21/20 N calls in all.
calls=$(( n2 - n1 )); [ "${PHASE:-round-trip}" = pipelined ] && calls=$(( calls * 21 / 20 ))
echo "system calls per call ($n1 and $n2 calls; $calls apart), all of navhostd's threads:"
join -a 1 -a 2 -e 0 -o 0,1.2,2.2 <(counts "$out/strace.$n1" | sort) <(counts "$out/strace.$n2" | sort) \
    | awk -v d=$calls '{ p = ($3 - $2) / d; if (p > 0.0005 || p < -0.0005) printf "%-18s %8.3f\n", $1, p }' \
    | sort -k2 -rn
echo "strace files: $out"
