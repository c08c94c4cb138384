#!/usr/bin/env bash
# Instructions per intent round trip in navhostd, counted by callgrind (repeatable, unlike times on a shared machine).
#
#   Benchmarks/Profiling/callgrind.sh [BUILD_DIR] [PLUGINS] [N1] [N2]
#   INTENT=changing Benchmarks/Profiling/callgrind.sh ...
#   PHASE=pipelined Benchmarks/Profiling/callgrind.sh ...
#   PHASE=fan-out Benchmarks/Profiling/callgrind.sh [BUILD_DIR] [PLUGINS] 20 60
#
# Runs the benchmark's round-trip phase twice, with N1 and N2 timed calls, against navhostd under callgrind, and
# divides the difference of the two instruction totals by N2 - N1: start-up, warm-up and the rest cancel out. Prints
# that figure and the most expensive functions of the N2 run; keeps the callgrind files for callgrind_annotate.
# The calls counted are the steady intent's (its state stays the same); with INTENT=changing, those of the intent that
# changes the state each call, written to disk before its reply (the writer thread's instructions count too).
# With PHASE=pipelined, the pipelined phase's (--quick): N1 and N2 calls on one connection, 64 in flight; the 16
# connections' calls are the same in both runs and cancel out. With PHASE=fan-out, those of one state change seen by
# 1,000 watchers (--quick: N1 and N2 changes, after the same 2 untimed ones): per change, not per watcher.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-.build/release}
plugins=${2:-$build/plugins}
n1=${3:-500}
n2=${4:-2500}
out=$(mktemp -d /tmp/navhost-callgrind.XXXXXX)

# valgrind 3.19 cannot read the DWARF 5 debug information swiftc writes: profile stripped copies.
mkdir -p "$out/bin"
cp "$build/navhostd" "$build/libNavHostKit.so" "$out/bin/"
cp -RL "$plugins" "$out/bin/plugins"
strip --strip-debug "$out/bin/navhostd" "$out/bin/libNavHostKit.so"
# The registry checks each library against the SHA-256 in its manifest: record the stripped file's.
for manifest in "$out"/bin/plugins/*/manifest.json; do
    folder=$(dirname "$manifest")
    library=$(sed -n 's/.*"library": *"\([^"]*\)".*/\1/p' "$manifest")
    strip --strip-debug "$folder/$library"
    digest=$(sha256sum "$folder/$library" | cut -d' ' -f1)
    sed -i "s/\"sha256\": *\"[0-9a-f]*\"/\"sha256\": \"$digest\"/" "$manifest"
done
cc -O2 -shared -fPIC -o "$out/sigsuspend-copy.so" Benchmarks/Profiling/sigsuspend-copy.c

# The daemon runs under callgrind without polling after a read (--busy-poll off): the passes of a polling loop are
# counted by how long the client takes, which valgrind's slowness changes, and are not work the call asked for.
cat > "$out/under-callgrind.sh" <<EOF
#!/bin/sh
profile=\$1
shift
exec env SWIFT_BACKTRACE=enable=no LD_PRELOAD=$out/sigsuspend-copy.so \\
    valgrind --tool=callgrind --callgrind-out-file="\$profile" "\$@" --busy-poll off
EOF
chmod +x "$out/under-callgrind.sh"

for calls in "$n1" "$n2"; do
    if [ "${PHASE:-round-trip}" = pipelined ]; then counts=(--pipelined-calls "$calls");
    elif [ "${PHASE:-round-trip}" = fan-out ]; then counts=(--fan-out-changes "$calls");
    elif [ "${INTENT:-steady}" = changing ]; then counts=(--round-trips 500 --changing-round-trips "$calls"); else
        counts=(--round-trips "$calls"); fi
    if ! SWIFT_BACKTRACE=enable=no "$build/navhost-bench" --quick --build-dir "$out/bin" --plugins "$out/bin/plugins" \
        --only "${PHASE:-round-trip}" "${counts[@]}" --output "$out/results-$calls.json" \
        --daemon-wrapper "$out/under-callgrind.sh $out/callgrind.$calls" \
        > "$out/bench-$calls.log"; then
        echo "callgrind.sh: navhost-bench failed in the run of $calls; its output:" >&2
        cat "$out/bench-$calls.log" >&2
        exit 1
    fi
    # valgrind writes the profile as the daemon exits; a daemon killed instead (navhost-bench gives one under a wrapper
    # ten minutes to stop since the runs that came out empty here) leaves the file empty.
    if [ ! -s "$out/callgrind.$calls" ]; then
        echo "callgrind.sh: valgrind wrote no profile in the run of $calls: the daemon did not exit by itself" >&2
        exit 1
    fi
done

total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'; }
first=$(total "$out/callgrind.$n1")
second=$(total "$out/callgrind.$n2")
echo "instructions: $first with $n1 calls, $second with $n2 calls"
if [ "${PHASE:-round-trip}" = pipelined ]; then
    # Each timed run of N calls follows an untimed one of N / 20 (navhost-bench's warm-up).
    echo "instructions per pipelined call: $(( (second - first) * 20 / ((n2 - n1) * 21) ))" \
        "(callgrind-per-call.py's figures are per timed call: 5 % more)"
elif [ "${PHASE:-round-trip}" = fan-out ]; then
    echo "instructions per state change seen by 1,000 watchers: $(( (second - first) / (n2 - n1) ))"
else
    echo "instructions per intent round trip: $(( (second - first) / (n2 - n1) ))"
fi
echo
echo "most expensive functions (self), $n2 calls:"
callgrind_annotate "$out/callgrind.$n2" 2>/dev/null | sed -n '/file:function/,$p' | sed -n 2,26p | swift demangle --simplified | cut -c1-160
echo
echo "most expensive functions (inclusive), $n2 calls:"
callgrind_annotate --inclusive=yes "$out/callgrind.$n2" 2>/dev/null | sed -n '/file:function/,$p' | sed -n 2,80p \
    | swift demangle --simplified | cut -c1-160
echo
echo "per call, by function or by caller: Benchmarks/Profiling/callgrind-per-call.py $out [--callers FUNCTION]"
echo "callgrind files: $out"
