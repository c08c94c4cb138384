#!/usr/bin/env bash
# The released versions of NavHostKit, oldest first, one "VERSION COMMIT" line each (docs/sdk.md, "Making a release").
# A release is a tag NavHostKit-X.Y.Z, or, where a clone has no tags, a commit whose subject is
# "Release NavHostKit X.Y.Z"; only releases reachable from HEAD count.
#
# Usage: scripts/sdk-releases.sh            every release
#        scripts/sdk-releases.sh --current  the version in the working tree's NavHostKitVersion.swift
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --current ]]; then
    sed -nE 's/.*static var compiled: NavHostKitVersion \{ NavHostKitVersion\(major: ([0-9]+), minor: ([0-9]+), patch: ([0-9]+)\) \}.*/\1.\2.\3/p' \
        NavHostKit/Sources/NavHostKit/NavHostKitVersion.swift
    exit 0
fi

{
    git tag --list 'NavHostKit-*' --merged HEAD | while read -r tag; do
        echo "${tag#NavHostKit-} $(git rev-list -n 1 "$tag")"
    done
    git log --format='%H %s' --grep='^Release NavHostKit [0-9]' HEAD | while read -r commit _ _ version _; do
        echo "$version $commit"
    done
} | sort -t. -k1,1n -k2,2n -k3,3n -u | awk '!seen[$1]++'
