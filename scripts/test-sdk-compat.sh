#!/usr/bin/env bash
# The compatibility promise, tested (docs/sdk.md): a plugin built against the SDK as it was at any earlier release of
# the current major version loads into the current daemon, navigates, handles an intent and reports its state.
#
# For each release of NavHostKit older than the working tree's version and of its major version (the newest release
# when there is none):
#   1. that release is checked out in a git worktree and its SDK package built, with library evolution as released;
#   2. an SDK folder is assembled from it with the module INTERFACES only (no binary .swiftmodule) and its library;
#   3. the fixture plugin Tests/Fixtures/CompatPlugin, a package of its own, is compiled against that folder and staged
#      by the current navhost-plugin-tool, whose manifest must name the old SDK version;
#   4. the current navhostd loads it; navctl navigates to compat.counter and sends onTappedAdd over the socket, and
#      navctl routes shows onTappedAdd's argument (learned by the current SDK).
#
# Usage: BUILD_DIR=.build/debug scripts/test-sdk-compat.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir=$root/${BUILD_DIR:-.build/debug}
triple=$(uname -m)-unknown-linux-gnu

work=$(mktemp -d /tmp/navhost-sdk-compat.XXXXXX)
# SwiftPM's lock files go to TMPDIR: inside the work folder, they go with it.
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp
daemon_pid=
cleanup() {
    if [[ -n $daemon_pid ]]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; fi
    for tree in "$work"/release-*; do git -C "$root" worktree remove --force "$tree" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\ntest-sdk-compat: %s (%ss)\n' "$1" "$SECONDS"; }
fail() { printf 'test-sdk-compat: FAILED: %s\n' "$1" >&2; [[ -f $work/daemon.log ]] && tail -30 "$work/daemon.log" >&2; exit 1; }

current=$(scripts/sdk-releases.sh --current)
releases=$(scripts/sdk-releases.sh | awk -v current="$current" '
    { split($1, v, "."); split(current, c, ".")
      older = v[1] < c[1] || (v[1] == c[1] && (v[2] < c[2] || (v[2] == c[2] && v[3] < c[3])))
      if (older && v[1] == c[1]) print }')
[[ -n $releases ]] || releases=$(scripts/sdk-releases.sh | tail -n 1)
[[ -n $releases ]] || fail "no release of NavHostKit to test against"

# Builds the fixture against NavHostKit $1 (commit $2) and has the current daemon serve it.
serve_plugin_built_against() {
    local version=$1 commit=$2
    local tree=$work/release-$version scratch=$root/.build-sdk-compat/release-$version
    local sdk=$work/sdk-$version fixture=$work/CompatPlugin-$version plugins=$work/plugins-$version
    local socket=$work/io.navhost-$version

    step "building NavHostKit $version (commit $commit) for a daemon with NavHostKit $current"
    git worktree add --detach "$tree" "$commit" >/dev/null 2>&1
    swift build --package-path "$tree/NavHostKit" --scratch-path "$scratch" >"$work/sdk.log" 2>&1 ||
        { cat "$work/sdk.log" >&2; fail "the SDK at $version does not build"; }
    local modules=$scratch/debug/Modules
    grep -q -- '-enable-library-evolution' "$modules/NavHostKit.swiftinterface" || fail "NavHostKit $version is not resilient"

    step "assembling an SDK folder of NavHostKit $version: its library and its module interfaces only"
    for module in NavHostJSON NavHostKit; do
        mkdir -p "$sdk/swift/$module.swiftmodule"
        cp "$modules/$module.swiftinterface" "$sdk/swift/$module.swiftmodule/$triple.swiftinterface"
    done
    cp "$scratch/debug/libNavHostKit.so" "$sdk/"

    step "compiling the fixture plugin against NavHostKit $version"
    cp -R Tests/Fixtures/CompatPlugin "$fixture"
    NAVHOST_SDK=$sdk swift build --package-path "$fixture" --manifest-cache none --scratch-path "$fixture/.build" \
        -Xswiftc -module-cache-path -Xswiftc "$work/module-cache-$version" >"$work/plugin.log" 2>&1 ||
        { cat "$work/plugin.log" >&2; fail "the fixture does not build against $version"; }

    step "staging it with the current navhost-plugin-tool"
    mkdir -p "$plugins" "$work/state-$version"
    (cd "$fixture" && "$build_dir/navhost-plugin-tool" stage --build-dir .build/debug --output "$plugins")
    grep -Eq "\"sdkVersion\": *\"$version\"" "$plugins/Compat/manifest.json" ||
        fail "the manifest does not say the plugin was built against $version"

    step "loading it into the current daemon (NavHostKit $current)"
    : >"$work/daemon.log"
    "$build_dir/navhostd" --socket "$socket" --plugins "$plugins" --state-dir "$work/state-$version" \
        --session main=compat.counter >"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    navctl() { "$build_dir/navctl" "$@" --socket "$socket"; }
    for _ in $(seq 100); do [[ -S $socket ]] && break; sleep 0.1; done
    navctl plugins list | tee "$work/plugins.txt"
    grep -Eq '^Compat +1\.0\.0 +loaded' "$work/plugins.txt" || fail "the daemon did not load the plugin"

    step "navigating, sending an intent, reading the state"
    navctl navigate compat.counter
    navctl send onTappedAdd by=2 --json >/dev/null
    navctl send onTappedAdd by=3 --json | tee "$work/send.json"
    grep -q "\"count\":5" "$work/send.json" || fail "the counter did not reach 5"
    grep -q "\"builtAgainst\":\"$version\"" "$work/send.json" || fail "the plugin does not report NavHostKit $version"
    navctl stack --json | grep -q '"route":"compat.counter"' || fail "compat.counter is not on the stack"
    # The intents' arguments are learned by the SDK the daemon loads, whichever SDK built the plugin.
    navctl routes | tee "$work/routes.txt"
    grep -q 'onTappedAdd(by: int)' "$work/routes.txt" || fail "navctl routes does not show onTappedAdd's argument"

    kill "$daemon_pid"
    wait "$daemon_pid" 2>/dev/null || true
    daemon_pid=
    step "passed: a plugin built against NavHostKit $version served by a daemon with NavHostKit $current"
}

mapfile -t lines <<<"$releases"
served=()
for line in "${lines[@]}"; do
    read -r version commit <<<"$line"
    serve_plugin_built_against "$version" "$commit"
    served+=("$version")
done
step "passed: plugins built against NavHostKit ${served[*]} served by $current"
