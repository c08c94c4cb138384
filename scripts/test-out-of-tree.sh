#!/usr/bin/env bash
# A feature plugin built outside this repository, from scratch, as a product team would (docs/sdk.md):
#   1. the SDK is installed into a temporary prefix (make install-files DESTDIR=…): libraries, module interfaces,
#      the test kit, navhost-plugin-tool, and the daemon and navctl beside them;
#   2. the INSTALLED navhost-plugin-tool scaffolds a plugin package, Favorites, into a folder outside the repository;
#   3. in that folder, with no path into this checkout (and a source file of its own that links Foundation): `make`
#      builds and stages it, `make test` runs its tests on the SDK's headless host; with an intent name that is no
#      case of its enum, `make` refuses to stage it, and `make install` then refuses the build staged before;
#      `make check` loads it through the daemon's registry, and fails for a Route enum of another namespace;
#      `make check SESSIONS=…` checks it against the running daemon's saved sessions; with no daemon to ask, or no
#      navctl, `make install` copies it and says so in a note;
#      `make run` runs a navhostd of its own on the staged plugin (the installed one, found beside the installed
#      navhost-plugin-tool), session main at favorites.list, and reloads a new build `make` stages by itself;
#   4. the installed navhostd runs with the example plugins; `make install PLUGINDIR=…` copies the staged folder into
#      its plugins folder while it runs and waits until the daemon says it serves it, and navctl navigates to
#      favorites.list and sends onTappedAdd over the socket; `make install` of a build the daemon refuses fails with
#      its reason, the version before serving on; a plain `swift build` after `make` is not installed (not staged);
#      `make uninstall` of it while it is a session's root fails with the daemon's reason and puts it back; without
#      that session, `make uninstall` takes it out and says the daemon unloaded it.
#
# Usage: BUILD_DIR=.build/debug scripts/test-out-of-tree.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir=${BUILD_DIR:-.build/debug}

work=$(mktemp -d /tmp/navhost-out-of-tree.XXXXXX)
daemon_pid=
run_pid=
cleanup() {
    if [[ -n $run_pid ]]; then kill -TERM "$run_pid" 2>/dev/null || true; wait "$run_pid" 2>/dev/null || true; fi
    if [[ -n $daemon_pid ]]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
# A script ended by a signal runs its EXIT trap only through these: make run's daemon would outlive it.
trap 'exit 143' TERM
trap 'exit 130' INT
step() { printf '\ntest-out-of-tree: %s (%ss)\n' "$1" "$SECONDS"; }
fail() { printf 'test-out-of-tree: FAILED: %s\n' "$1" >&2; [[ -f $work/daemon.log ]] && tail -30 "$work/daemon.log" >&2; exit 1; }

step "installing the SDK, navhostd and navctl into $work/root"
make --no-print-directory install-files DESTDIR="$work/root" BUILD_DIR="$build_dir" >"$work/install.log"
sdk=$work/root/usr/lib/navhost
ls "$sdk"/swift/NavHostKit.swiftmodule/*.swiftinterface >/dev/null
# The name plugins record and the dynamic linker looks for, the same across minor versions (docs/sdk.md).
readelf -d "$sdk/libNavHostKit.so" | grep -q 'SONAME.*\[libNavHostKit\.so\]' || fail "libNavHostKit.so has no SONAME"

step "scaffolding Favorites outside the repository with the installed navhost-plugin-tool"
"$work/root/usr/bin/navhost-plugin-tool" new Favorites --out-of-tree "$work/Favorites"
grep -q "$sdk" "$work/Favorites/Package.swift" || fail "the package does not name the installed SDK"
if grep -rq "$root" "$work/Favorites"; then fail "the package refers to the NavHost checkout"; fi

step "swift format lint in the plugin's own folder"
(cd "$work/Favorites" && swift format lint --strict --recursive .)

step "make with NAVHOST_SDK naming no SDK: refused, saying so"
if (cd "$work/Favorites" && NAVHOST_SDK="$work/nowhere" make) >"$work/no-sdk.log" 2>&1; then fail "make without an SDK succeeded"; fi
grep -q "holds no NavHost SDK" "$work/no-sdk.log" || fail "make without an SDK said: $(tail -3 "$work/no-sdk.log")"

step "make (build and stage) in the plugin's own folder, the plugin linking Foundation"
# As a plugin that depends on a package using Foundation (Yams, …) does: loading it once made Foundation's run loop
# take the tool's main queue over, and `navhost-plugin-tool stage` never ended.
data_folder=$(dirname "$(grep -rl 'KeyValueStore' "$work/Favorites/Sources" | grep /Data/ | head -1)")
cat >"$data_folder/FavoriteIdentifiers.swift" <<'SWIFT'
import Foundation

/// New identifiers, from Foundation: the plugin links it, as one depending on a package that uses it does.
enum FavoriteIdentifiers {
    static func make() -> String { UUID().uuidString }
}
SWIFT
(cd "$work/Favorites" && timeout 300 make) || fail "make did not succeed (rc $?): did navhost-plugin-tool stage hang?"
staged=$work/Favorites/.build/debug/plugins/Favorites
[[ -f $staged/manifest.json && -f $staged/libFavoritesFeature.so ]] || fail "nothing staged in $staged"
grep -Eq '"sdkVersion": *"2\.' "$staged/manifest.json" || fail "the manifest has no 2.x sdkVersion"

step "make test in the plugin's own folder"
(cd "$work/Favorites" && make test) 2>&1 | tee "$work/test.log"
grep -Eq 'Test run with [1-9][0-9]* tests? in [0-9]+ suites? passed' "$work/test.log" || fail "the plugin's tests"

step "an intent name with no case in Intent.names: make refuses to stage the plugin, naming it"
viewmodel=$(grep -rl 'static let names = \["onTappedAdd"' "$work/Favorites/Sources")
cp "$viewmodel" "$work/viewmodel.swift"
sed -i 's/static let names = \["onTappedAdd"/static let names = ["onTappedAdd", "onTappedAd"/' "$viewmodel"
if (cd "$work/Favorites" && make) >"$work/misspelt.log" 2>&1; then fail "a plugin listing onTappedAd was staged"; fi
grep -q '"onTappedAd"' "$work/misspelt.log" || fail "the refusal does not name onTappedAd: $(tail -5 "$work/misspelt.log")"
if (cd "$work/Favorites" && make install PLUGINDIR="$work/nowhere") >"$work/stale.log" 2>&1; then
    fail "make install took the build staged before a failed make"
fi
grep -q "the last make failed" "$work/stale.log" || fail "make install after a failed make said: $(cat "$work/stale.log")"
cp "$work/viewmodel.swift" "$viewmodel"
(cd "$work/Favorites" && make) >/dev/null

step "make check loads the staged plugin through the daemon's registry"
(cd "$work/Favorites" && make check) 2>&1 | tee "$work/check.log"
grep -q "1 loaded, 0 quarantined" "$work/check.log" || fail "make check: $(tail -3 "$work/check.log")"

step "a Route enum whose namespace is not its screens': make check fails, naming the route"
route=$(grep -rl 'static let namespace = "favorites"' "$work/Favorites/Sources")
cp "$route" "$work/route.swift"
sed -i 's/static let namespace = "favorites"/static let namespace = "favourites"/' "$route"
if (cd "$work/Favorites" && make check) >"$work/namespace.log" 2>&1; then
    fail "make check passed a Route enum of another namespace: $(tail -3 "$work/namespace.log")"
fi
grep -q "Favorites lists favorites.list among its screens but its coordinator does not know it" "$work/namespace.log" \
    || fail "make check said: $(tail -5 "$work/namespace.log")"
cp "$work/route.swift" "$route"
(cd "$work/Favorites" && make) >/dev/null

step "make install with no daemon to ask, or no navctl: it copies, says so in a note, and exits 0"
alone=$work/alone/plugins
(cd "$work/Favorites" && NAVHOST_SOCKET=$work/nobody.sock make install PLUGINDIR="$alone" NAVCTL="$sdk/navctl" \
    INSTALL_WAIT=2) >"$work/alone.log" 2>&1 || fail "make install with no daemon: $(cat "$work/alone.log")"
grep -q "$alone did not exist, so no navhostd watches it yet" "$work/alone.log" ||
    fail "make install into a new folder said: $(cat "$work/alone.log")"
grep -q "note: installed in $alone; no daemon said it took it" "$work/alone.log" ||
    fail "make install with no daemon said: $(cat "$work/alone.log")"
cmp -s "$staged/manifest.json" "$alone/Favorites/manifest.json" || fail "make install with no daemon copied nothing"
(cd "$work/Favorites" && make install PLUGINDIR="$alone" NAVCTL="$work/no-navctl") >"$work/no-navctl.log" 2>&1 ||
    fail "make install with no navctl: $(cat "$work/no-navctl.log")"
grep -q "note: installed; no navctl ($work/no-navctl) to ask whether the daemon took it" "$work/no-navctl.log" ||
    fail "make install with no navctl said: $(cat "$work/no-navctl.log")"
[[ ! -e $alone/.Favorites.previous && ! -e $alone/.Favorites.installing ]] || fail "make install left a folder beside it"

step "make run: a navhostd of the author's own on the staged plugin, reloading a new build by itself"
# make's recipe execs navhost-plugin-tool run, which execs navhostd: the daemon is make's child, and a SIGTERM to
# make reaches it.
(cd "$work/Favorites" && exec make run >"$work/run.log" 2>&1) &
run_pid=$!
run_navctl() { "$sdk/navctl" "$@" --socket "$work/Favorites/.build/navhost-run/navhostd.sock"; }
for _ in $(seq 600); do
    run_navctl stack >/dev/null 2>&1 && break
    kill -0 "$run_pid" 2>/dev/null || fail "make run ended: $(cat "$work/run.log")"
    sleep 0.1
done
grep -q "session main at favorites.list" "$work/run.log" || fail "make run said: $(cat "$work/run.log")"
run_navctl stack --json | grep -q '"route":"favorites.list"' || fail "make run's daemon does not show favorites.list"
run_navctl send onTappedAdd title=Tea --json | grep -q '"title":"Tea"' || fail "make run's daemon: onTappedAdd"
cp "$work/Favorites/plugin.json" "$work/plugin.json.good"
sed -i 's/"version": *"0.1.0"/"version": "0.2.0"/' "$work/Favorites/plugin.json"
# make check stages the build it checks in a folder of its own: the daemon does not take it. Staged in the folder the
# daemon watches, the reload came first, and a state the new build could not decode was gone before the check read it.
(cd "$work/Favorites" && make check >"$work/run-check.log" 2>&1) || fail "make check of 0.2.0: $(tail -3 "$work/run-check.log")"
grep -q "^Favorites 0.2.0: loaded" "$work/run-check.log" || fail "make check did not check 0.2.0: $(cat "$work/run-check.log")"
sleep 1
run_navctl plugins list | grep -Eq "^Favorites +0\.1\.0 +loaded" || fail "make run's daemon took the build make check checked"
(cd "$work/Favorites" && make >/dev/null)
for _ in $(seq 100); do
    run_navctl plugins list | grep -Eq "^Favorites +0\.2\.0 +loaded" && break
    sleep 0.1
done
run_navctl plugins list | grep -Eq "^Favorites +0\.2\.0 +loaded" || fail "make run's daemon did not reload 0.2.0"
# The new build's screen loads the item from the feature's store in its onAppear, a task of its own.
for _ in $(seq 100); do
    run_navctl stack --json | grep -q '"title":"Tea"' && break
    sleep 0.1
done
run_navctl stack --json | grep -q '"title":"Tea"' || fail "the new build's screen does not show the item stored before"
kill -TERM "$run_pid"
wait "$run_pid" || true
run_pid=
tail -1 "$work/run.log" | grep -q "Stopped" || fail "make run's daemon did not stop cleanly: $(tail -5 "$work/run.log")"
cp "$work/plugin.json.good" "$work/Favorites/plugin.json"
(cd "$work/Favorites" && make >/dev/null)

step "starting the installed navhostd with the example plugins"
mkdir -p "$work/plugins" "$work/state"
cp -R "$sdk/plugins/." "$work/plugins/"
socket=$work/io.navhost
# Session kiosk's root is the plugin's list: it opens once Favorites serves, and keeps it from being uninstalled.
start_daemon() {
    "$sdk/navhostd" --socket "$socket" --plugins "$work/plugins" --state-dir "$work/state" "$@" >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
}
start_daemon --session main=home.main --session kiosk=favorites.list
navctl() { "$sdk/navctl" "$@" --socket "$socket"; }
# Waits up to ten seconds for `navctl plugins list` to show Favorites 0.1.0 in the state $1.
favorites_becomes() {
    for _ in $(seq 100); do
        navctl plugins list | grep -Eq "^Favorites +0\.1\.0 +$1" && return 0
        sleep 0.1
    done
    return 1
}
for _ in $(seq 100); do [[ -S $socket ]] && break; sleep 0.1; done
navctl stack >/dev/null || fail "the daemon does not answer"

step "make install into the running daemon's plugins folder"
# By default into the plugins folder of the installation the SDK came from; here into the test daemon's.
# (The dry run's text is kept first: `grep -q` would stop reading early, and under pipefail make's SIGPIPE fails.)
dry_run=$(cd "$work/Favorites" && make -n install)
grep -q "$sdk/plugins" <<<"$dry_run" || fail "make install does not default to the plugins folder beside the SDK"
# make install asks the installed navctl whether the daemon took the build, and prints its answer.
install_favorites() {
    (cd "$work/Favorites" && NAVHOST_SOCKET=$socket make install PLUGINDIR="$work/plugins" NAVCTL="$sdk/navctl")
}
install_favorites | tee "$work/install.log"
# `loaded`, whether navctl saw the daemon's event or the daemon had taken the build before navctl asked.
grep -Eq "^loaded Favorites 0.1.0 from" "$work/install.log" || fail "make install did not say the daemon loaded it"
favorites_becomes loaded || fail "the daemon did not load Favorites"
navctl plugins list

step "navigating to favorites.list and sending onTappedAdd over the socket"
navctl navigate favorites.list
navctl send onTappedAdd title=Milk --json | tee "$work/send.json"
grep -q '"title":"Milk"' "$work/send.json" || fail "the state after onTappedAdd does not hold the new item"
# An ID navctl's key=value reads as a string (`id=favorite-1`), not as a number as "1" would be.
grep -q '"id":"favorite-1"' "$work/send.json" || fail "the new item's ID is not favorite-1"
navctl stack --json | grep -q '"route":"favorites.list"' || fail "favorites.list is not on the stack"

step "make check SESSIONS=… checks the build against the running daemon's saved sessions, reading only"
(cd "$work/Favorites" && make check SESSIONS="$work/state/sessions" PLUGINDIR="$work/plugins") >"$work/sessions-check.log" 2>&1 \
    || fail "make check SESSIONS=…: $(tail -3 "$work/sessions-check.log")"
grep -Eq "2 saved sessions, [0-9]+ screens? checked: every one comes back as it was" "$work/sessions-check.log" \
    || fail "make check SESSIONS=… said: $(tail -3 "$work/sessions-check.log")"

step "make install of a build the daemon refuses fails with its reason; the version before serves on"
staged=$work/Favorites/.build/debug/plugins/Favorites
cp "$staged/manifest.json" "$work/manifest.good"
sed -i "s/\"sha256\": *\"[0-9a-f]*\"/\"sha256\": \"$(printf '0%.0s' $(seq 64))\"/" "$staged/manifest.json"
if install_favorites >"$work/refused.log" 2>&1; then fail "make install of a refused build exited 0: $(cat "$work/refused.log")"; fi
grep -q "refused Favorites: checksumMismatch" "$work/refused.log" || fail "make install said: $(cat "$work/refused.log")"
grep -q "version 0.1.0 keeps serving" "$work/refused.log" || fail "make install said: $(cat "$work/refused.log")"
navctl plugins list | grep -Eq "^Favorites +0\.1\.0 +loaded" || fail "Favorites 0.1.0 stopped serving"
# The build installed before is back in the plugins folder: a restart serves what serves now.
grep -q "is back in $work/plugins/Favorites" "$work/refused.log" || fail "make install said: $(cat "$work/refused.log")"
cmp -s "$work/manifest.good" "$work/plugins/Favorites/manifest.json" || fail "the refused build stayed in the folder"
[[ ! -e $work/plugins/.Favorites.previous ]] || fail "make install left $work/plugins/.Favorites.previous"
cp "$work/manifest.good" "$staged/manifest.json"
# The build that serves, installed again: the daemon checks the folder and says so.
install_favorites >"$work/again.log" 2>&1 || fail "make install of the good build again: $(cat "$work/again.log")"
grep -Eq "^checked Favorites 0.1.0 from $work/plugins/Favorites$" "$work/again.log" ||
    fail "make install again said: $(cat "$work/again.log")"

step "a swift build that make did not stage is not installed"
touch "$work/Favorites/Sources/"*.swift
(cd "$work/Favorites" && swift build --manifest-cache none -j 2 >/dev/null)
if install_favorites >"$work/unstaged.log" 2>&1; then fail "make install took a build make did not stage"; fi
grep -q "only make stages it): run make, then make install" "$work/unstaged.log" || fail "make install said: $(cat "$work/unstaged.log")"
(cd "$work/Favorites" && make >/dev/null)

uninstall_favorites() {
    (cd "$work/Favorites" && NAVHOST_SOCKET=$socket make uninstall PLUGINDIR="$work/plugins" NAVCTL="$sdk/navctl")
}

step "make uninstall of a plugin serving a session's root fails with the daemon's reason; the folder is back"
if uninstall_favorites >"$work/kept.log" 2>&1; then fail "make uninstall of kiosk's root exited 0: $(cat "$work/kept.log")"; fi
grep -q "refused to remove Favorites: .*kiosk.*; version 0.1.0 keeps serving" "$work/kept.log" \
    || fail "make uninstall said: $(cat "$work/kept.log")"
[[ -f $work/plugins/Favorites/manifest.json ]] || fail "make uninstall did not put $work/plugins/Favorites back"
[[ ! -e $work/plugins/.Favorites.removing ]] || fail "make uninstall left $work/plugins/.Favorites.removing"
navctl plugins list | grep -Eq "^Favorites +0\.1\.0 +loaded" || fail "Favorites stopped serving"

step "make uninstall: the daemon unloads the plugin, and its screen leaves the stack"
# Without session kiosk, which pinned it.
kill "$daemon_pid"; wait "$daemon_pid" || true
start_daemon --session main=home.main
for _ in $(seq 100); do navctl stack >/dev/null 2>&1 && break; sleep 0.1; done
navctl stack --json | grep -q '"route":"favorites.list"' || fail "favorites.list is not on main's stack after a restart"
uninstall_favorites >"$work/uninstall.log" 2>&1 || fail "make uninstall: $(cat "$work/uninstall.log")"
grep -q "^removed Favorites 0.1.0 from $work/plugins/Favorites" "$work/uninstall.log" \
    || fail "make uninstall said: $(cat "$work/uninstall.log")"
[[ ! -e $work/plugins/Favorites && ! -e $work/plugins/.Favorites.removing ]] \
    || fail "make uninstall left $work/plugins/Favorites"
favorites_becomes removed || fail "the daemon did not unload Favorites: $(navctl plugins list)"
navctl stack --json | grep -q '"route":"favorites.list"' && fail "favorites.list is still on the stack"
# Nothing left to take out: no failure.
uninstall_favorites >"$work/again.log" 2>&1 || fail "make uninstall with nothing installed: $(cat "$work/again.log")"
grep -q "nothing in $work/plugins/Favorites" "$work/again.log" || fail "make uninstall again said: $(cat "$work/again.log")"

step "passed"
