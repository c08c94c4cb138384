#!/usr/bin/env python3
"""Per-call figures from the two callgrind runs `callgrind.sh` leaves behind.

`callgrind.sh` runs the round trip twice, with N1 and N2 timed calls; start-up and warm-up are the same in both, so
the difference of any figure between the runs, divided by N2 - N1, is what one call adds to it.

    callgrind-per-call.py DIR                      functions by self instructions per call
    callgrind-per-call.py DIR --inclusive          by inclusive instructions per call (misleading for async
                                                   functions: a resumed continuation is counted in its caller)
    callgrind-per-call.py DIR --callers FUNCTION   who calls FUNCTION, with calls and instructions per call
    callgrind-per-call.py DIR --callees FUNCTION   what FUNCTION calls, with calls and inclusive instructions per
                                                   call: walk down from a function this way to find where a call's
                                                   time goes (inclusive totals of recursive and async functions
                                                   mislead; these do not)

DIR is the folder `callgrind.sh` printed last; N1 and N2 are read from its file names. FUNCTION is matched against
the demangled names (`swift_beginAccess`, `Connection.pump`): the function called exactly that, else the first
whose name holds it, is the one shown, in both runs. Call counts are exact where instruction counts move by a few thousand from run to run: compare small changes
by them.
"""

import argparse
import collections
import glob
import os
import re
import signal
import subprocess
import sys

COST = re.compile(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)")
CALLER = re.compile(r"\s*([\d,]+)\s+\([^)]*\)\s+<\s+(.*?)\s+\(([\d,]+)x\)")
CALLEE = re.compile(r"\s*([\d,]+)\s+\([^)]*\)\s+>\s+(.*?)\s+\(([\d,]+)x\)")


def number(text):
    return int(text.replace(",", ""))


def demangled(text):
    return subprocess.run(["swift", "demangle", "--simplified"], input=text, capture_output=True, text=True).stdout


# A folder made by `mktemp -d` (`/tmp/navhost-bench.KUn96L/`): navhost-bench stages the plugins' images under a new
# one each run, so the same plugin function would otherwise have a different name in each of the two runs.
TEMPORARY_FOLDER = re.compile(r"(/tmp/[\w-]+)\.\w{6}/")


def normalized(text):
    """`text` with every temporary folder's random part replaced by `*`, the same in both runs."""
    return TEMPORARY_FOLDER.sub(r"\1.*/", text)


def annotate(path, *options):
    output = subprocess.run(
        ["callgrind_annotate", "--threshold=100", *options, path], capture_output=True, text=True, check=True
    ).stdout
    return normalized(demangled(output))


def costs(path, inclusive):
    """Instructions by function: self, or inclusive."""
    table = collections.Counter()
    listing = False
    for line in annotate(path, *(["--inclusive=yes"] if inclusive else [])).splitlines():
        if "file:function" in line:
            listing = True
            continue
        match = COST.match(line) if listing else None
        if match:
            table[match.group(2)] += number(match.group(1))
    return table


def matched(before, after):
    """`before` with each function that `after` files under another library filed under that one.

    Callgrind files the functions of one name in several libraries (a helper every Swift library holds, like
    `__swift_instantiateConcreteTypeFromMangledName`) together, under the library it met first, which may be another
    in each run: without this, such a function's start-up cost would show as the second run's per call."""
    library = re.compile(r" \[[^\]]*\]$")
    elsewhere = {library.sub("", name): name for name in after if name not in before}
    renamed = collections.Counter()
    for name, cost in before.items():
        renamed[name if name in after else elsewhere.get(library.sub("", name), name)] += cost
    return renamed


def choose(names, function):
    """The function `function` names among `names`: the one called exactly that, else the first that holds it."""
    for name in names:
        if name == function or name.split(":", 1)[-1].split(" [", 1)[0] == function:
            return name
    return next((name for name in names if function in name), None)


def tree(path, option, pattern, above):
    """Each function of `annotate(path, option)` with the matches of `pattern` that go with it: its callers, listed
    `above` it, or its callees, below it."""
    blocks, current, pending = [], None, []
    for line in annotate(path, option).splitlines():
        match = pattern.match(line)
        cost = COST.match(line)
        if match:
            (pending if above or current is None else current[1]).append(match)
        elif cost and "* " in line:
            current = (cost.group(2).lstrip("* ").strip(), pending if above else [])
            blocks.append(current)
            pending = []
        elif not line.strip():
            current, pending = None, []
    return blocks


def related(path, function, chosen, option, pattern, above):
    """The instructions and calls of the callers or callees of `chosen` (of the function `function` names when
    `None`), and the name chosen: the second run must look at the same function."""
    blocks = tree(path, option, pattern, above)
    if chosen is not None and all(name != chosen for name, _ in blocks):
        sys.exit(f"{chosen} is not in {path}")
    chosen = chosen or choose([name for name, _ in blocks], function)
    if chosen is None:
        sys.exit(f"no function matching {function!r} in {path}")
    spent, calls = collections.Counter(), collections.Counter()
    for name, matches in blocks:
        for match in matches if name == chosen else []:
            spent[match.group(2)] += number(match.group(1))
            calls[match.group(2)] += number(match.group(3))
    return spent, calls, chosen


def callers(path, function, chosen=None):
    """Who calls the function `function` names (or `chosen`): instructions and calls, and the name chosen."""
    return related(path, function, chosen, "--tree=caller", CALLER, above=True)


def callees(path, function, chosen=None):
    """What the function `function` names (or `chosen`) calls: instructions and calls, and the name chosen."""
    return related(path, function, chosen, "--tree=calling", CALLEE, above=False)


def runs(folder):
    files = sorted(glob.glob(os.path.join(folder, "callgrind.*")), key=lambda path: int(path.rsplit(".", 1)[1]))
    if len(files) != 2:
        sys.exit(f"expected the two callgrind files of callgrind.sh in {folder}")
    return files, int(files[1].rsplit(".", 1)[1]) - int(files[0].rsplit(".", 1)[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--inclusive", action="store_true")
    parser.add_argument("--callers", metavar="FUNCTION")
    parser.add_argument("--callees", metavar="FUNCTION")
    parser.add_argument("--top", type=int, default=40)
    arguments = parser.parse_args()
    (first, second), calls = runs(arguments.folder)

    if arguments.callers or arguments.callees:
        walk, function = (callers, arguments.callers) if arguments.callers else (callees, arguments.callees)
        spent_first, count_first, chosen = walk(first, function)
        spent_second, count_second, _ = walk(second, function, chosen)
        rows = [
            ((count_second[name] - count_first[name]) / calls, (spent_second[name] - spent_first[name]) / calls, name)
            for name in spent_second
        ]
        rows.sort(key=lambda row: row[1] if arguments.callees else row[0], reverse=True)
        kind = "callers" if arguments.callers else "callees"
        print(f"{kind} of {chosen[:150]}: calls per call, instructions per call")
        for per_call, instructions, name in rows[: arguments.top]:
            print(f"{per_call:8.2f} {instructions:9.0f}  {name[:150]}")
        return

    before, after = costs(first, arguments.inclusive), costs(second, arguments.inclusive)
    before = matched(before, after)
    rows = sorted(((after[name] - before[name]) / calls, name) for name in after)
    rows.reverse()
    print(f"instructions per call ({'inclusive' if arguments.inclusive else 'self'}), {calls} calls apart")
    for instructions, name in rows[: arguments.top]:
        print(f"{instructions:9.0f}  {name[:150]}")


if __name__ == "__main__":
    # Piped into `head`, the listing stops quietly where the reader stopped reading.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
