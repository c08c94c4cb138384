#!/usr/bin/env python3
"""Checks the relative links of NavHost's Markdown documents.

    check-doc-links.py                     every tracked *.md of the repository: each relative link names a file or
                                           folder that exists, and each #anchor a heading of the document it names
    check-doc-links.py --installed DIR     the documents `make install-docs` put in DIR: each link to another
                                           document (*.md) holds there too, except links into the folders given with
                                           --not-installed (development records that stay in the repository)

Links to programs' sources and data files are not followed in an installed tree: the sources are not installed.
Exits 1 and prints file:line for each broken link.
"""

import argparse
import functools
import os
import re
import subprocess
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def lines_outside_code(path):
    """(number, text) of each line of a Markdown file that is not inside a fenced code block."""
    fenced = False
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if line.startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line


@functools.cache
def anchors(path):
    """The anchors of a document's headings, a repeated heading's with -1, -2, … as GitHub numbers them."""
    found, seen = set(), {}
    for _, line in lines_outside_code(path):
        match = HEADING.match(line)
        if match:
            name = slug(match.group(2))
            count = seen.get(name, 0)
            seen[name] = count + 1
            found.add(name if count == 0 else f"{name}-{count}")
    return found


def broken_links(root, documents, installed, not_installed):
    problems = []
    for document in documents:
        path = os.path.join(root, document)
        for number, line in lines_outside_code(path):
            for match in LINK.finditer(line):
                link = match.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", link):
                    continue  # https:, file:, mailto:
                target, _, anchor = link.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
                relative = os.path.relpath(resolved, root)
                if installed:
                    if not resolved.endswith(".md") or any(
                        relative == folder.rstrip("/") or relative.startswith(folder.rstrip("/") + "/")
                        for folder in not_installed
                    ):
                        continue
                if not os.path.exists(resolved):
                    problems.append(f"{document}:{number}: {link}: no such file")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    problems.append(f"{document}:{number}: {link}: {relative} has no heading #{anchor}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--installed", metavar="DIR", help="check the documents installed in DIR")
    parser.add_argument("--not-installed", metavar="FOLDER", action="append", default=[])
    arguments = parser.parse_args()
    if arguments.installed:
        root = arguments.installed
        documents = sorted(
            os.path.relpath(os.path.join(folder, name), root)
            for folder, _, names in os.walk(root)
            for name in names
            if name.endswith(".md")
        )
    else:
        root = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
        ).stdout.strip()
        listed = subprocess.run(["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True, check=True)
        documents = listed.stdout.split()
    if not documents:
        print(f"check-doc-links: no documents in {root}", file=sys.stderr)
        return 1
    problems = broken_links(root, documents, arguments.installed is not None, arguments.not_installed)
    for problem in problems:
        print(problem, file=sys.stderr)
    where = f"installed in {root}" if arguments.installed else "in the repository"
    print(f"check-doc-links: {len(documents)} documents {where}, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
