#!/usr/bin/env bash
# The scaffold's end-to-end test: `navhost-plugin-tool new Orders` in a COPY of the package (never this tree),
# then, in the copy: lint the new plugin, build, run OrdersFeatureTests, stage every plugin, and load them all
# through the daemon's registry (`navhost-plugin-tool check` fails if any plugin is quarantined).
#
# Usage: scripts/test-scaffold.sh [BUILD_DIR]   (BUILD_DIR holds this tree's navhost-plugin-tool; default .build/debug)
#
# The copy needs a build of its own: SwiftPM's build records name absolute paths, so a copied .build/ is rebuilt
# from scratch anyway. That is why this runs as `make test-scaffold`, apart from `make test`. The copy is built as the
# package for plugin work alone (NAVHOST_PACKAGE=plugins, Package.swift's last section): the SDK, the test kit, the
# plugin host, navhost-plugin-tool and the plugins, without the daemon, the client and the inspector, whose build the
# new plugin does not need.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir=${1:-$root/.build/debug}
swift=${SWIFT:-swift}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy=$work/NavHost
mkdir -p "$copy"

step() { printf '\ntest-scaffold: %s (%ss)\n' "$1" "$SECONDS"; }

step "copying the package's sources to $copy"
tar -C "$root" --exclude=./.build --exclude='./.build-*' --exclude='./.build_*' --exclude=./.venv --exclude=./.git \
    -cf - . | tar -C "$copy" -xf -

step "scaffolding Plugins/Orders"
"$build_dir/navhost-plugin-tool" new Orders --package-dir "$copy"
cd "$copy"
export NAVHOST_PACKAGE=plugins

step "linting the new plugin"
"$swift" format lint --strict --recursive Plugins/Orders

step "building the copy"
"$swift" build --manifest-cache none --build-tests

step "running OrdersFeatureTests"
NAVHOST_BUILD_DIR=$copy/.build/debug "$swift" test --manifest-cache none --skip-build --filter OrdersFeatureTests \
    2>&1 | tee "$work/test.log"
grep -Eq 'Test run with [1-9][0-9]* tests? in [0-9]+ suites? passed' "$work/test.log"

step "staging every plugin and loading them through the registry"
.build/debug/navhost-plugin-tool stage --build-dir .build/debug Plugins/*/
.build/debug/navhost-plugin-tool check .build/debug/plugins | tee "$work/check.log"
grep -q '^Orders 0.1.0: loaded' "$work/check.log"

step "passed"
