#!/usr/bin/env python3
"""A NavHost front end in plain Python: Varlink over a Unix socket, no library but the standard one.

It shows what docs/front-ends.md describes, and the test suite runs it against the real daemon
(Tests/NavHostDaemonTests/FrontEndExampleTests.swift):

    navhost_frontend.py --socket PATH tour
        navigates, sends intents, pops, and meets the typed errors, while a second connection mirrors the
        session from Watch events; exits 0 when the mirror equals the daemon's own Stack.

    navhost_frontend.py --socket PATH follow [--session main]
        prints the session's routes on one line at each revision, and keeps following across a daemon restart:
        a stop ends the watch with io.navhost.varlink.ServiceShuttingDown; it reconnects and resumes.
"""

import argparse
import json
import socket
import sys
import time

NAVIGATION = "io.navhost.Navigation."


class VarlinkError(Exception):
    """An error reply: its qualified name and its parameters."""

    def __init__(self, name, parameters):
        super().__init__(f"{name} {json.dumps(parameters)}")
        self.name = name
        self.parameters = parameters


class Connection:
    """One connection to the daemon. Each message is a JSON object followed by a NUL byte, both ways."""

    def __init__(self, path, timeout=30):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(timeout)
        self.socket.connect(path)
        self.pending = b""

    def send(self, method, parameters=None, **flags):
        message = {"method": method, "parameters": parameters or {}}
        message.update(flags)  # more=True for a stream, oneway=True for no reply
        self.socket.sendall(json.dumps(message).encode() + b"\0")

    def receive(self):
        while b"\0" not in self.pending:
            data = self.socket.recv(65536)
            if not data:
                raise ConnectionError("the daemon closed the connection")
            self.pending += data
        message, self.pending = self.pending.split(b"\0", 1)
        reply = json.loads(message)
        if "error" in reply:
            raise VarlinkError(reply["error"], reply.get("parameters", {}))
        return reply

    def call(self, method, parameters=None):
        """One call, one reply: its parameters."""
        self.send(NAVIGATION + method if "." not in method else method, parameters)
        return self.receive().get("parameters", {})

    def stream(self, method, parameters=None):
        """A call with "more": yields each reply's parameters until one comes without "continues"."""
        self.send(NAVIGATION + method, parameters, more=True)
        while True:
            reply = self.receive()
            yield reply.get("parameters", {})
            if not reply.get("continues"):
                return

    def close(self):
        self.socket.close()


class UnknownEvent(Exception):
    """An event of a kind this front end does not know: the mirror can no longer follow; watch again afresh."""


class Mirror:
    """A session's stack kept from Watch replies: a snapshot replaces it, each event changes it."""

    def __init__(self):
        self.revision = None
        self.stack = []

    def apply(self, reply):
        if "snapshot" in reply:
            self.revision = reply["snapshot"]["revision"]
            self.stack = reply["snapshot"]["stack"]
            return
        event = reply["event"]
        kind = event["kind"]
        if kind not in ("pushed", "popped", "replaced", "stateChanged", "errorChanged"):
            # Resuming would skip it for good: start again from a snapshot.
            self.revision = None
            raise UnknownEvent(kind)
        if kind == "pushed":
            self.stack.append(event["screen"])
        elif kind == "popped":
            removed = set(event["removed"])
            self.stack = [screen for screen in self.stack if screen["id"] not in removed]
        elif kind == "replaced":
            self.stack = event["stack"]
        elif kind in ("stateChanged", "errorChanged"):
            for screen in self.stack:
                if screen["id"] == event["screenID"]:
                    if kind == "stateChanged":
                        screen["state"] = event["state"]
                    elif "error" in event:
                        screen["error"] = event["error"]
                    else:
                        screen.pop("error", None)
        self.revision = event["revision"]


def follow(path, session, on_change, give_up_after=60):
    """Follows `session` for good: resumes from the last revision seen after a stop, or starts afresh.

    Between attempts it waits, longer each time (up to 2 s); it gives up after `give_up_after` seconds without a
    Watch that started. A session not found while reconnecting may be one the daemon has not opened again yet.
    """
    mirror = Mirror()
    delay = 0.0
    failing_since = None
    while True:
        if delay:
            time.sleep(delay)
        delay = min(max(delay * 2, 0.1), 2.0)
        failing_since = failing_since or time.monotonic()
        if time.monotonic() - failing_since > give_up_after:
            raise TimeoutError(f"no Watch of {session} for {give_up_after} s")
        try:
            connection = Connection(path, timeout=None)
        except OSError:
            continue  # the daemon is not back yet
        parameters = {"session": session}
        if mirror.revision is not None:
            parameters["resumeFrom"] = mirror.revision
        try:
            for reply in connection.stream("Watch", parameters):
                delay, failing_since = 0.0, None
                if not reply:
                    return  # {}: the session was closed
                mirror.apply(reply)
                on_change(mirror)
        except VarlinkError as error:
            if error.name == "io.navhost.Navigation.WatcherTooSlow":
                mirror.revision = None  # too far behind (earlier daemons): start again from a snapshot
            elif error.name == "io.navhost.Navigation.SessionNotFound" and mirror.revision is not None:
                pass  # the daemon is starting again, or stopping: try again
            elif error.name != "io.navhost.varlink.ServiceShuttingDown":
                raise
        except UnknownEvent:
            pass  # watch again, from a snapshot
        except ConnectionError:
            pass  # the daemon went away without a word (kill -9): reconnect
        finally:
            connection.close()


def tour(path):
    """Drives the main session through the daemon's example plugins while a second connection mirrors it."""
    control = Connection(path)
    watch = Connection(path)
    control.call("Replace", {"routes": [{"route": "home.main"}]})
    replies = watch.stream("Watch", {"session": "main"})
    mirror = Mirror()
    mirror.apply(next(replies))

    pushed = control.call("Navigate", {"route": "products.list"})
    list_id = pushed["screen"]["id"]
    control.call("Send", {"screen": list_id, "intent": "onChangedFilter", "arguments": {"text": "lamp"}})
    control.call("Navigate", {"route": "products.detail", "parameters": {"productID": "p1"}})
    control.call("Pop")

    expected_errors = [
        ("Navigate", {"route": "products.nowhere"}, "io.navhost.Navigation.RouteNotFound"),
        ("Navigate", {"route": "products.detail"}, "io.navhost.Navigation.InvalidRouteParameters"),
        ("Send", {"intent": "onTappedNowhere"}, "io.navhost.Navigation.IntentNotFound"),
        ("Send", {"intent": "onChangedFilter", "arguments": {"text": 7}}, "io.navhost.Navigation.InvalidIntentArguments"),
        ("Stack", {"session": "nowhere"}, "io.navhost.Navigation.SessionNotFound"),
    ]
    for method, parameters, name in expected_errors:
        try:
            control.call(method, parameters)
            print(f"{method} {parameters}: answered, where {name} was expected", file=sys.stderr)
            return 1
        except VarlinkError as error:
            if error.name != name:
                print(f"{method} {parameters}: {error.name}, where {name} was expected", file=sys.stderr)
                return 1

    # The mirror catches up with the daemon's revision, then must equal its Stack.
    current = control.call("Stack")["snapshot"]
    while mirror.revision < current["revision"]:
        mirror.apply(next(replies))
    if mirror.stack != current["stack"]:
        print(f"mirror {json.dumps(mirror.stack)}\nstack  {json.dumps(current['stack'])}", file=sys.stderr)
        return 1
    routes = " ".join(screen["route"] for screen in mirror.stack)
    print(f"revision {mirror.revision}: {routes}; filter {mirror.stack[-1]['state']['value']['filter']}")
    return 0


def main():
    arguments = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    arguments.add_argument("--socket", default="/run/navhost/io.navhost")
    commands = arguments.add_subparsers(dest="command", required=True)
    commands.add_parser("tour")
    following = commands.add_parser("follow")
    following.add_argument("--session", default="main")
    options = arguments.parse_args()
    if options.command == "tour":
        return tour(options.socket)

    def show(mirror):
        print(f"{mirror.revision}: " + " ".join(screen["route"] for screen in mirror.stack), flush=True)

    follow(options.socket, options.session, show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
