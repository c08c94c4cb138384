#!/usr/bin/env python3
"""The KEYS section of navhostd.conf(5), from navhostd's own help texts.

Reads `navhostd --experimental-dump-help` (ArgumentParser's JSON description of the command line) on standard input
and writes roff for each option that is also a key of navhostd.conf: the key, its value, and the option's help
text. The keys are the long options without their dashes; the few that are named otherwise in the file are mapped
below, and the options that only make sense on a command line are left out.

Usage: navhostd --experimental-dump-help | scripts/conf-man-keys.py [--template FILE --date YYYY-MM-DD]

With --template, writes FILE with its @KEYS@ and @DATE@ filled in and its own comment lines (.\\") left out: the
whole page.
"""
import argparse
import json
import sys

# Options that are not keys of the file.
COMMAND_LINE_ONLY = {"config", "check-config", "help", "version", "enable-test-hooks"}
# Options whose key in the file has another name or place.
RENAMED = {"session": "sessions", "control-uid": "control.users", "control-group": "control.groups",
           "state-dir": "state-dir"}
# What a key says in the file, where the option's help speaks of the command line.
TEXTS = {
    "sessions": "The sessions and their root routes: NAME: ROUTE, or NAME: {root, parameters, max-stack-depth, "
                "intent-timeout} for one with route parameters or limits of its own. (default: main: home.main)",
    "control.users": "The users (names or IDs) that may control, besides root and the daemon's own user.",
    "control.groups": "The groups (names or IDs) whose members may control, besides navhost.",
    "watch-plugins": "Load, reload and unload plugins as their folders change in the plugins directory (inotify); "
                     "false loads them only at start, on SIGHUP and by navctl plugins. (default: true)",
    "flight-recorder-on-disk": "Write each session's flight recording to <state-dir>/recordings/<session>.navrec as "
                               "it is made, as well as keeping it in memory, so it outlives a crash "
                               "(docs/recording.md). (default: false)",
}
# What a key's value looks like in the file, where it differs from the option's.
VALUES = {
    "sessions": "NAME: ROUTE, or NAME: {root, parameters, max-stack-depth, intent-timeout}",
    "control.users": "[NAME or ID, ...]",
    "control.groups": "[NAME or ID, ...]",
    "watch-plugins": "true | false",
    "flight-recorder-on-disk": "true | false",
    "socket-mode": "\"0660\"",
}


def roff(text):
    """Text safe in a roff line: no leading dot or quote, backslashes doubled, hyphens as hyphens."""
    text = text.replace("\\", "\\\\").replace("-", "\\-")
    return ("\\&" + text) if text[:1] in (".", "'") else text


def main():
    parser = argparse.ArgumentParser(description="navhostd.conf(5)'s KEYS from navhostd's help dump")
    parser.add_argument("--template", help="the page, with @KEYS@ and @DATE@ to fill in")
    parser.add_argument("--date", default="", help="the page's date")
    arguments = parser.parse_args()
    command = json.load(sys.stdin)["command"]
    lines = []
    for argument in command["arguments"]:
        name = argument.get("preferredName", {}).get("name")
        if argument.get("preferredName", {}).get("kind") != "long" or name in COMMAND_LINE_ONLY:
            continue
        if not argument.get("shouldDisplay", True):
            continue
        # The inverted flag of an on/off option (--no-watch-plugins): the file says false to the key.
        if name.startswith("no-"):
            continue
        key = RENAMED.get(name, name)
        section = argument.get("sectionTitle", "")
        if section.lower() == "limits":
            key = "limits." + name
        value = VALUES.get(key, "<" + argument.get("valueName", name) + ">")
        lines.append(".TP")
        lines.append("\\fB" + roff(key) + "\\fR: \\fI" + roff(value) + "\\fR")
        text = TEXTS.get(key, argument.get("abstract", ""))
        lines.append(roff(text) + " (The option: \\fB\\-\\-" + roff(name) + "\\fR.)")
    if not lines:
        sys.exit("conf-man-keys: no options in the help dump")
    keys = "\n".join(lines)
    if arguments.template:
        with open(arguments.template, encoding="utf-8") as template:
            page = [line for line in template.read().split("\n") if not line.startswith('.\\"')]
        sys.stdout.write("\n".join(page).replace("@DATE@", arguments.date).replace("@KEYS@", keys))
    else:
        print(keys)


if __name__ == "__main__":
    main()
