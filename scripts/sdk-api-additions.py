#!/usr/bin/env python3
"""Prints the SDK's additions between two swift-api-digester dumps, one line each: `MODULE: Kind name`.

Usage: scripts/sdk-api-additions.py OLD_DIR NEW_DIR MODULE...

Each folder holds `MODULE.api.json` and `MODULE.abi.json` (scripts/check-sdk-api.sh's `dump`). A declaration is an
addition when the new ABI dump has it and the old one does not, and it is public API (the new API dump has it) or
@usableFromInline (ABI that inlinable code may call). The ABI dumps of a debug build hold the internal declarations
too (the build enables testing): those are not API, and adding one needs no new version.
"""
import json
import sys


def declarations(path):
    """Every declaration in the dump at `path`, by its USR: (kind, printed name, attributes)."""
    with open(path) as file:
        root = json.load(file)
    found = {}
    stack = [root.get("ABIRoot", root)]
    while stack:
        node = stack.pop()
        if "declKind" in node and "usr" in node:
            found[node["usr"]] = (node["declKind"], node.get("printedName", node["name"]), node.get("declAttributes", []))
        stack.extend(node.get("children", []))
    return found


def main():
    old, new, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
    for module in modules:
        before = declarations(f"{old}/{module}.abi.json")
        after = declarations(f"{new}/{module}.abi.json")
        public = declarations(f"{new}/{module}.api.json")
        for usr, (kind, name, attributes) in sorted(after.items(), key=lambda item: item[1][1]):
            if usr in before:
                continue
            if usr in public or "UsableFromInline" in attributes:
                print(f"{module}: {kind} {name}")


if __name__ == "__main__":
    main()
