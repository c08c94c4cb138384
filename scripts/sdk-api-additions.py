#!/usr/bin/env python3
"""Prints the SDK's additions between two swift-api-digester dumps, one line each: `MODULE: Kind name`.

Usage: scripts/sdk-api-additions.py OLD_DIR NEW_DIR MODULE...

Each folder holds `MODULE.api.json` and `MODULE.abi.json` (scripts/check-sdk-api.sh's `dump`). An addition is:
- a declaration the new API dump has and the old one does not: a public one added, an accessor added to one (a
  setter), an internal one made public, or one only the API dump holds (`@_alwaysEmitIntoClient`, a typealias);
- a declaration that is `@usableFromInline` in the new ABI dump and was not in the old one (ABI that inlinable code
  may call, which the API dump leaves out);
- a conformance a public type gained, and a public class or member made `open`.
The ABI dumps of a debug build hold the internal declarations too (the build enables testing): those are no one's
API, and adding one needs no new version.
"""
import json
import sys


def declarations(path):
    """Every declaration of the module in the dump at `path` (not another module's type it extends), by its USR:
    (kind, qualified name, attributes, conformances)."""
    with open(path) as file:
        root = json.load(file)
    found = {}
    stack = [(root.get("ABIRoot", root), "")]
    while stack:
        node, parent = stack.pop()
        name = node.get("printedName", node.get("name", ""))
        qualified = f"{parent}.{name}" if parent else name
        if "declKind" not in node:
            qualified = parent
        elif "usr" in node and not node.get("isExternal", False):
            conformances = {c.get("usr", c.get("name")) for c in node.get("conformances", [])}
            attributes = node.get("declAttributes", []) + (["Open"] if node.get("isOpen", False) else [])
            found[node["usr"]] = (node["declKind"], qualified, attributes, conformances)
        for child in node.get("children", []) + node.get("accessors", []):
            stack.append((child, qualified))
    return found


def additions(old, new, module):
    old_api = declarations(f"{old}/{module}.api.json")
    new_api = declarations(f"{new}/{module}.api.json")
    old_abi = declarations(f"{old}/{module}.abi.json")
    new_abi = declarations(f"{new}/{module}.abi.json")
    lines = []
    for usr, (kind, name, attributes, conformances) in new_api.items():
        if usr not in old_api:
            lines.append(f"{kind} {name}")
            continue
        for added in sorted(conformances - old_api[usr][3]):
            lines.append(f"Conformance {name}: {added}")
        if "Open" in attributes and "Open" not in old_api[usr][2]:
            lines.append(f"{kind} {name} (open)")
    for usr, (kind, name, attributes, _) in new_abi.items():
        if "UsableFromInline" not in attributes or usr in new_api:
            continue
        if usr not in old_abi or "UsableFromInline" not in old_abi[usr][2]:
            lines.append(f"{kind} {name} (@usableFromInline)")
    return sorted(set(lines))


def main():
    old, new, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
    for module in modules:
        for line in additions(old, new, module):
            print(f"{module}: {line}")


if __name__ == "__main__":
    main()
