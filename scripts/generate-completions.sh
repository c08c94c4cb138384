#!/usr/bin/env bash
# Shell completion scripts for navctl and navhost-plugin-tool, written to BUILD_DIR/completions/ by the programs
# themselves (swift-argument-parser's --generate-completion-script), one folder per shell, each file named as that
# shell's completion folder wants it:
#
#   bash/navctl          -> $(BASHCOMPDIR)/navctl           (bash-completion loads it on the first Tab after navctl)
#   zsh/_navctl          -> $(ZSHCOMPDIR)/_navctl
#   fish/navctl.fish     -> $(FISHCOMPDIR)/navctl.fish
#
# and the same three for navhost-plugin-tool. navctl's scripts complete the names the daemon knows (routes, intents,
# screens, plugins, sessions) by running navctl as the user types (docs/navctl.md, "Shell completion"). Nothing
# generated is committed: the scripts follow the code, as the man pages do (scripts/generate-man.sh).
#
# Usage: scripts/generate-completions.sh BUILD_DIR     (BUILD_DIR holds navctl, navhost-plugin-tool or both: the
#        SDK's build, `make sdk`, has only the latter)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:?usage: scripts/generate-completions.sh BUILD_DIR}
out=$build_dir/completions

# Written into a folder of their own, checked, then moved into place: a run that fails leaves no half-written
# script for `make install` to install.
work=$(mktemp -d "$build_dir/.completions.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/bash" "$work/zsh" "$work/fish"
programs=()
for program in navctl navhost-plugin-tool; do [[ -x $build_dir/$program ]] && programs+=("$program"); done
((${#programs[@]} > 0)) || { echo "generate-completions: $build_dir holds neither navctl nor navhost-plugin-tool" >&2; exit 1; }
for program in "${programs[@]}"; do
    "$build_dir/$program" --generate-completion-script bash >"$work/bash/$program"
    "$build_dir/$program" --generate-completion-script zsh >"$work/zsh/_$program"
    "$build_dir/$program" --generate-completion-script fish >"$work/fish/$program.fish"
done
# A script that does not even parse would only fail on a user's Tab: bash checks it (-n); zsh (-n) and fish
# (--no-execute) where those shells are installed. scripts/install-deps.sh installs both for the tests, which drive
# the scripts in them (Tests/NavctlTests), and every make target that builds first runs it (`make completions`,
# `make install`, `make deb`), so those check all three. The guard matters only where nothing installed the shells
# (this script run by hand, or by `make deb-files` on a build folder made elsewhere): there it checks what it can.
bash -n "$work"/bash/*
if command -v zsh >/dev/null; then for script in "$work"/zsh/*; do zsh -n "$script"; done; fi
if command -v fish >/dev/null; then for script in "$work"/fish/*; do fish --no-execute "$script"; done; fi
rm -rf "$out"
mv -T "$work" "$out"
trap - EXIT
