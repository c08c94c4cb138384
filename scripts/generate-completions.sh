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
# Usage: scripts/generate-completions.sh BUILD_DIR     (BUILD_DIR holds navctl and navhost-plugin-tool)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:?usage: scripts/generate-completions.sh BUILD_DIR}
out=$build_dir/completions

rm -rf "$out"
mkdir -p "$out/bash" "$out/zsh" "$out/fish"
for program in navctl navhost-plugin-tool; do
    [[ -x $build_dir/$program ]] || { echo "generate-completions: $build_dir/$program is missing" >&2; exit 1; }
    "$build_dir/$program" --generate-completion-script bash >"$out/bash/$program"
    "$build_dir/$program" --generate-completion-script zsh >"$out/zsh/_$program"
    "$build_dir/$program" --generate-completion-script fish >"$out/fish/$program.fish"
done
# A script that does not even parse would only fail on a user's Tab: bash and zsh check their own (-n), where the
# shells are installed; fish has no such check before 3.0 and is checked when it is there.
bash -n "$out"/bash/*
if command -v zsh >/dev/null; then for script in "$out"/zsh/*; do zsh -n "$script"; done; fi
if command -v fish >/dev/null; then for script in "$out"/fish/*; do fish --no-execute "$script"; done; fi
