#!/usr/bin/env bash
# Man pages from the programs' own help texts: navhostd(8), navctl(1) and navhost-plugin-tool(1), written to
# BUILD_DIR/man/ by swift-argument-parser's `generate-manual`, which runs each program with --experimental-dump-help
# and turns what its ArgumentParser declarations say into mdoc; and navhostd.conf(5), whose keys are navhostd's
# options: docs/man/navhostd.conf.5.in with its KEYS section made from the same dump (scripts/conf-man-keys.py).
# Nothing generated is committed: the pages follow the code.
#
# The tool is the one behind the package plugin `swift package plugin generate-manual`, run directly: the plugin
# first builds every product of the package (release by default: the benchmark and the fuzz target too) and gives
# every program the same --section, where navhostd belongs in section 8. The tool is built once, from the
# swift-argument-parser version Package.resolved pins (SwiftPM's checkout, exported so that nothing is written into
# it), in its own scratch folder, .build/generate-manual/.
#
# Usage: scripts/generate-man.sh BUILD_DIR     (BUILD_DIR holds navhostd, navctl and navhost-plugin-tool)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:?usage: scripts/generate-man.sh BUILD_DIR}
out=$build_dir/man
checkout=.build/checkouts/swift-argument-parser
work=.build/generate-manual
tool=$work/scratch/debug/generate-manual

[[ -d $checkout/.git ]] || { echo "generate-man: $checkout is missing; run make build" >&2; exit 1; }
# The export is redone when SwiftPM has moved the checkout to another version.
revision=$(git -C "$checkout" rev-parse HEAD)
if [[ ! -x $tool || $(cat "$work/revision" 2>/dev/null) != "$revision" ]]; then
    rm -rf "$work/source"
    mkdir -p "$work/source"
    git -C "$checkout" archive HEAD | tar -x -C "$work/source"
    ${SWIFT:-swift} build --package-path "$work/source" --scratch-path "$work/scratch" -c debug \
        --product generate-manual >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; exit 1; }
    echo "$revision" >"$work/revision"
fi

mkdir -p "$out"
rm -f "$out"/*.[0-9]
# The date of the last commit, not today's: the same tree gives the same pages.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
# The generator drops every character outside ASCII (its mdoc escaping keeps only ASCII ones), so the help texts'
# ellipses (`{"sessions":["main",…]}`, `?token=…`) and arrows would vanish from the pages without a trace. Each
# program runs behind a wrapper that spells them in ASCII; any other such character stops the script, naming it.
wrappers=$work/ascii
mkdir -p "$wrappers"
for page in navhostd:8 navctl:1 navhost-plugin-tool:1; do
    program=${page%%:*}
    if [[ -x $build_dir/$program ]]; then
        printf '#!/usr/bin/env bash\nset -o pipefail\n%q "$@" | sed -e "s/…/.../g" -e "s/→/->/g"\n' \
            "$(realpath "$build_dir/$program")" >"$wrappers/$program"
        chmod +x "$wrappers/$program"
        # What the generator will read, checked here.
        dump=$("$wrappers/$program" --experimental-dump-help)
        status=0
        left=$(LC_ALL=C grep -o -P '[^\x00-\x7F]+' <<<"$dump") || status=$?
        if ((status > 1)); then echo "generate-man: grep cannot look for characters outside ASCII" >&2; exit 1; fi
        if ((status == 0)); then
            echo "generate-man: $program's help has characters the man page would lose: $(sort -u <<<"$left" | tr '\n' ' ')" >&2
            echo "generate-man: spell them in ASCII in the help text, or teach this script to" >&2
            exit 1
        fi
        "$tool" "$wrappers/$program" --section "${page##*:}" --date "$date" --authors "NavHost maintainers" \
            --output-directory "$out"
    fi
done
# Two touches to the generated mdoc. A blank line (between the paragraphs of a discussion) is a paragraph break,
# .Pp: groff warns about blank lines in mdoc. navhostd has no subcommands: the generator still gives it a
# "subcommand" in the synopsis and ArgumentParser's implicit `help` subcommand among the options; both go.
sed -i 's/^$/.Pp/' "$out"/*.[0-9]
if [[ -f $out/navhostd.8 ]]; then
    sed -i -e '/^\.Ar subcommand$/d' -e '/^\.It Em help$/,/^\.El$/d' "$out/navhostd.8"
fi
if [[ -x $build_dir/navhostd ]]; then
    "$build_dir/navhostd" --experimental-dump-help |
        python3 scripts/conf-man-keys.py --template docs/man/navhostd.conf.5.in --date "$date" >"$out/navhostd.conf.5"
fi
ls "$out"/*.[0-9] >/dev/null
