#!/usr/bin/env bash
# NavHostKit's API and ABI against its last release (docs/sdk.md, "How it is checked").
#
# Builds the SDK package as it was at the last release (a git worktree of that commit) and as it is now, dumps the
# public API and the ABI of NavHostJSON and NavHostKit with swift-api-digester, and fails when the current SDK breaks
# either while NavHostKitVersion.compiled keeps the release's major version. Then proves that the check bites: a
# scratch copy of the current SDK with a public member removed must be reported as breaking.
#
# Usage: scripts/check-sdk-api.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
modules=(NavHostJSON NavHostKit)
triple=$(uname -m)-unknown-linux-gnu

work=$(mktemp -d /tmp/navhost-sdk-api.XXXXXX)
cleanup() {
    git -C "$root" worktree remove --force "$work/release" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
say() { printf 'check-sdk-api: %s\n' "$*"; }

# Builds the SDK package in $1 into the scratch folder $2 and dumps each module's API and ABI into $3.
dump() {
    local package=$1 scratch=$2 out=$3
    mkdir -p "$out"
    swift build --package-path "$package" --scratch-path "$scratch" >"$out/build.log" 2>&1 || {
        cat "$out/build.log" >&2
        return 1
    }
    for module in "${modules[@]}"; do
        swift-api-digester -dump-sdk -module "$module" -I "$scratch/debug/Modules" -target "$triple" \
            -o "$out/$module.api.json"
        swift-api-digester -dump-sdk -abi -module "$module" -I "$scratch/debug/Modules" -target "$triple" \
            -o "$out/$module.abi.json"
    done
}

# Prints what breaks from the dumps in $1 to those in $2, one line each; nothing when nothing breaks. The ABI mode also
# lists every addition as "a new API without '@available'": availability is an Apple platforms' concern (an OS
# library's users must check the OS version), and on Linux an addition breaks nothing, so those lines are dropped.
breakage() {
    local old=$1 new=$2
    for module in "${modules[@]}"; do
        for kind in api abi; do
            local mode=()
            [[ $kind == abi ]] && mode=(-abi)
            swift-api-digester -diagnose-sdk "${mode[@]}" -input-paths "$old/$module.$kind.json" \
                -input-paths "$new/$module.$kind.json" 2>&1 |
                grep -Ev "^\s*$|^/\*.*\*/$|is a new API without '@available'$" | sed "s/^/$module ($kind): /" || true
        done
    done
}

# Prints what was added from the dumps in $1 to those in $2, one line each: public or @usableFromInline declarations,
# setters, conformances, `open` (the debug build's ABI dump holds internal declarations too, which are no one's API).
additions() {
    scripts/sdk-api-additions.py "$1" "$2" "${modules[@]}"
}

current=$(scripts/sdk-releases.sh --current)
[[ -n $current ]] || { say "cannot read the version in NavHostKitVersion.swift"; exit 1; }
say "the SDK in the working tree is $current"
dump NavHostKit "$root/.build-sdk-api/current" "$work/current"

# The check bites: a public member removed from a scratch copy must be reported.
say "self-test: removing LoadingState.isLoading from a scratch copy of the SDK"
mkdir -p "$work/scratch"
cp -R NavHostKit/Package.swift NavHostKit/Sources "$work/scratch/"
sed -i '/public var isLoading: Bool {/,/^    }/d' "$work/scratch/Sources/NavHostKit/LoadingState.swift"
# An internal declaration added to the copy is no addition to the API; a @usableFromInline one is.
printf '\nextension LoadingState {\n    func internalProbe() {}\n    @usableFromInline func inlinableProbe() {}\n}\n' \
    >>"$work/scratch/Sources/NavHostKit/LoadingState.swift"
dump "$work/scratch" "$root/.build-sdk-api/scratch" "$work/scratch-dump"
found=$(breakage "$work/current" "$work/scratch-dump")
printf '%s\n' "$found"
grep -q 'LoadingState.isLoading has been removed' <<<"$found" || { say "FAILED: the removal was not reported"; exit 1; }
# And the other way round: the member put back is an addition.
added=$(additions "$work/scratch-dump" "$work/current")
grep -q 'isLoading' <<<"$added" || { say "FAILED: the addition was not reported: $added"; exit 1; }
probes=$(additions "$work/current" "$work/scratch-dump")
[[ $probes == *inlinableProbe* ]] || { say "FAILED: a @usableFromInline addition was not reported: $probes"; exit 1; }
[[ $probes != *internalProbe* ]] || { say "FAILED: an internal declaration was reported as API: $probes"; exit 1; }

release=$(scripts/sdk-releases.sh | tail -n 1)
if [[ -z $release ]]; then
    say "no release of NavHostKit yet: nothing to compare against"
    say "passed"
    exit 0
fi
read -r released commit <<<"$release"
say "the last release is $released ($commit)"
git worktree add --detach "$work/release" "$commit" >/dev/null 2>&1
dump "$work/release/NavHostKit" "$root/.build-sdk-api/release" "$work/release-dump"
broken=$(breakage "$work/release-dump" "$work/current")

major() { echo "${1%%.*}"; }
if [[ -z $broken ]]; then
    say "no breaking change to the API or ABI since $released"
elif (($(major "$current") > $(major "$released"))); then
    printf '%s\n' "$broken"
    say "breaking changes since $released, allowed by the new major version $current"
else
    printf '%s\n' "$broken"
    say "FAILED: breaking changes since $released without a new major version ($current): bump it, or keep the API"
    exit 1
fi
# A release is what plugins were built against: once made, its version names that API, and an addition needs a new one.
if [[ $current == "$released" ]]; then
    added=$(additions "$work/release-dump" "$work/current")
    if [[ -n $added ]]; then
        printf '%s\n' "$added"
        say "FAILED: API added since the release $released, still versioned $released: set the next minor version in"
        say "NavHostKitVersion.compiled and start its section in NavHostKit/CHANGELOG.md"
        exit 1
    fi
fi
if [[ $(printf '%s\n%s\n' "$released" "$current" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1) != "$current" ]]; then
    say "FAILED: the working tree's version $current is older than the release $released"
    exit 1
fi
say "passed"
