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
the demangled names (`swift_beginAccess`, `Connection.pump`); the callers of the first function that matches are
shown. Call counts are exact where instruction counts move by a few thousand from run to run: compare small changes
by them.
"""

import argparse
import collections
import glob
import os
import re
import subprocess
import sys

COST = re.compile(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)")
CALLER = re.compile(r"\s*([\d,]+)\s+\([^)]*\)\s+<\s+(.*?)\s+\(([\d,]+)x\)")
CALLEE = re.compile(r"\s*([\d,]+)\s+\([^)]*\)\s+>\s+(.*?)\s+\(([\d,]+)x\)")


def number(text):
    return int(text.replace(",", ""))


def demangled(text):
    return subprocess.run(["swift", "demangle", "--simplified"], input=text, capture_output=True, text=True).stdout


def annotate(path, *options):
    output = subprocess.run(
        ["callgrind_annotate", "--threshold=100", *options, path], capture_output=True, text=True, check=True
    ).stdout
    return demangled(output)


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


def callers(path, function):
    """For the first function whose name holds `function`: its callers' instructions and calls."""
    spent, calls = collections.Counter(), collections.Counter()
    block = []
    for line in annotate(path, "--tree=caller").splitlines():
        if not line.strip():
            block = []
        elif "* " in line and function in line and not line.lstrip().startswith("<"):
            for caller in block:
                match = CALLER.match(caller)
                if match:
                    spent[match.group(2)] += number(match.group(1))
                    calls[match.group(2)] += number(match.group(3))
            return spent, calls
        elif "< " in line:
            block.append(line)
        else:
            block = []
    sys.exit(f"no function matching {function!r} in {path}")


def callees(path, function):
    """For every function whose name holds `function` (the first one's name, with and without a recursion suffix):
    the instructions and calls of what it calls."""
    spent, calls = collections.Counter(), collections.Counter()
    chosen = None
    inside = False
    for line in annotate(path, "--tree=calling").splitlines():
        match = CALLEE.match(line)
        if match:
            if inside:
                spent[match.group(2)] += number(match.group(1))
                calls[match.group(2)] += number(match.group(3))
            continue
        inside = False
        cost = COST.match(line)
        if cost and "* " in line:
            name = cost.group(2).lstrip("* ").strip()
            if chosen is None and function in name:
                chosen = name
            inside = chosen is not None and name == chosen
    if chosen is None:
        sys.exit(f"no function matching {function!r} in {path}")
    return spent, calls


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
        spent_first, count_first = walk(first, function)
        spent_second, count_second = walk(second, function)
        rows = [
            ((count_second[name] - count_first[name]) / calls, (spent_second[name] - spent_first[name]) / calls, name)
            for name in spent_second
        ]
        rows.sort(key=lambda row: row[1] if arguments.callees else row[0], reverse=True)
        kind = "callers" if arguments.callers else "callees"
        print(f"{kind} of {function}: calls per call, instructions per call")
        for per_call, instructions, name in rows[: arguments.top]:
            print(f"{per_call:8.2f} {instructions:9.0f}  {name[:150]}")
        return

    before, after = costs(first, arguments.inclusive), costs(second, arguments.inclusive)
    rows = sorted(((after[name] - before[name]) / calls, name) for name in after)
    rows.reverse()
    print(f"instructions per call ({'inclusive' if arguments.inclusive else 'self'}), {calls} calls apart")
    for instructions, name in rows[: arguments.top]:
        print(f"{instructions:9.0f}  {name[:150]}")


if __name__ == "__main__":
    main()
