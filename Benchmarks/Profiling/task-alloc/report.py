#!/usr/bin/env python3
"""Names the call sites of a task-alloc-shim table: report.py TABLE MAPS.

Groups them by the function (innermost inlined frame, from addr2line) that holds the call, per call of the busiest
site (the number of Sends when the phase measured is the pipelined Send), with the sizes and source lines."""
import collections
import subprocess
import sys

table, maps_path = sys.argv[1], sys.argv[2]
mappings = []
for line in open(maps_path):
    fields = line.split()
    if len(fields) < 6:
        continue
    low, high = (int(part, 16) for part in fields[0].split("-"))
    mappings.append((low, high, int(fields[2], 16), fields[5]))

sites = []
for line in open(table).readlines()[1:]:
    count, size, address = line.split()
    address = int(address, 16)
    for low, high, offset, path in mappings:
        if low <= address < high:
            sites.append((int(count), int(size), address - low + offset, path))
            break

calls = max(site[0] for site in sites)
groups = collections.defaultdict(lambda: [0.0, 0.0, []])
for count, size, offset, path in sites:
    if count < calls / 2:
        continue
    lines = subprocess.run(["addr2line", "-f", "-e", path, hex(offset)], capture_output=True, text=True).stdout
    symbol, place = (lines.split("\n") + ["", ""])[:2]
    name = subprocess.run(["swift", "demangle", "--simplified", symbol], capture_output=True, text=True).stdout
    name = name.strip().split(" ---> ")[-1] if symbol else path.rsplit("/", 1)[-1]
    group = groups[name[:100]]
    group[0] += count / calls
    group[1] += size * count / calls
    group[2].append(f"{size}@{place.rsplit('/', 1)[-1]}")

print(f"per call: {sum(g[0] for g in groups.values()):.1f} task allocations, "
      f"{sum(g[1] for g in groups.values()):.0f} bytes ({calls} calls of the busiest site)")
for name, (count, size, places) in sorted(groups.items(), key=lambda item: -item[1][1]):
    print(f"{count:5.1f} {size:7.0f}  {name}   {' '.join(places[:8])}")
