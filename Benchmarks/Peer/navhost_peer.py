#!/usr/bin/env python3
"""navhost_peer: the Products catalog screen served the way a Python author would serve it with the PyPI `varlink`
package, as a peer to compare navhostd with (`navhost-bench`, phase `peer`; see BENCHMARKS.md).

It is a `varlink.Service` that implements `io.navhost.Navigation.Send` of the real interface definition
(Sources/NavHostWire/Interfaces/io.navhost.Navigation.varlink, loaded as it is), served by
`varlink.ThreadingServer` (one thread per connection) on a Unix socket:

    .venv/bin/python Benchmarks/Peer/navhost_peer.py unix:/tmp/peer.sock --state-dir /tmp/peer-state \
        --session rt=products.list

What it does is what the Products plugin's catalog screen (`products.list`) does for the intent `onChangedFilter`:

- The catalog is read once at start from `--catalog` (by default Plugins/Products/Resources/products.json; the
  benchmark passes the staged copy navhostd loads). Products withdrawn from sale (`listed: false`) are never shown.
- `onChangedFilter(text)` keeps the products whose name contains `text`, ignoring case and the white space around `text`;
  an empty (or blank) text keeps them all (FilterProductsByNameUseCase). The screen's state is then
  `{"status": "loaded", "value": {"filter", "products": [{"id", "name", "category", "price", "isInStock"}],
  "matchCount", "totalCount"}}`, the price written as the customer reads it (`€1,299.00`; Money+Display.swift).
- Each session (`--session NAME=ROUTE`, repeatable; the route must be products.list) has one screen, `s1`, and a
  revision: 2 once its catalog is shown (push, then loaded), as navhostd numbers it, and one more for every Send that
  changes the screen's state. A Send that leaves the state as it was changes nothing and writes nothing.
- The reply is navhostd's: `{"revision": int, "screen": {"id", "route", "parameters", "presentation", "state"}}`.
- Errors: SessionNotFound, ScreenNotFound (a screen other than s1), IntentNotFound (any intent but onChangedFilter:
  the peer implements only that one), InvalidIntentArguments (no string `text`).

--state-dir DIR: a Send that changes a session's state writes the session (its revision, stack and the filter the
screen restores, as navhostd keeps them) to DIR/sessions/NAME.json before it answers, the way navhostd saved a session
until it moved to a journal (docs/durability.md): to a temporary file beside it, fsync, rename over the old file, fsync
of the folder. Writes of one session
are serialised by that session's lock, which every Send of the session holds. At start, a session whose file exists
takes its revision and filter from it. Without --state-dir nothing is written, which is not the daemon's work.
"""

import argparse
import importlib.metadata
import json
import os
import pathlib
import signal
import sys
import threading

import varlink

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
INTERFACE = "io.navhost.Navigation"
ROUTE = "products.list"
SCREEN_ID = "s1"


# MARK: - Catalog


def display_price(amount_in_cents, currency):
    """The price as a customer reads it: `€1,299.00`, `-$5.00`, or `1,000.00 CHF` for a currency without a symbol."""
    sign = "-" if amount_in_cents < 0 else ""
    units, cents = divmod(abs(amount_in_cents), 100)
    number = f"{units:,}.{cents:02d}"
    symbol = {"EUR": "€", "USD": "$", "GBP": "£"}.get(currency)
    return f"{sign}{number} {currency}" if symbol is None else f"{sign}{symbol}{number}"


def load_catalog(path):
    """The listed products of `products.json`, in catalog order."""
    with open(path, encoding="utf-8") as file:
        products = json.load(file)["products"]
    return [product for product in products if product["listed"]]


def filter_by_name(products, text):
    """The products whose name contains `text`, ignoring case and the white space around it; all when it is blank."""
    query = text.strip().lower()
    if not query:
        return products
    return [product for product in products if query in product["name"].strip().lower()]


def catalog_state(products, text):
    """The catalog screen's state on the wire, with the filter `text` applied."""
    matches = filter_by_name(products, text)
    rows = [
        {
            "id": product["id"],
            "name": product["name"],
            "category": product["category"],
            "price": display_price(product["price"]["amountInCents"], product["price"]["currency"]),
            "isInStock": product["stock"] > 0,
        }
        for product in matches
    ]
    return {
        "status": "loaded",
        "value": {"filter": text, "products": rows, "matchCount": len(rows), "totalCount": len(products)},
    }


# MARK: - Sessions


class Session:
    """One session: its catalog screen's filter and state, its revision, and the lock its Sends take."""

    def __init__(self, name, products, state_dir):
        self.name = name
        self.products = products
        self.lock = threading.Lock()
        self.path = os.path.join(state_dir, "sessions", f"{name}.json") if state_dir else None
        self.revision = 2
        self.filter = ""
        if self.path and os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as file:
                record = json.load(file)
            self.revision = record["revision"]
            self.filter = record["stack"][0]["restorable"]["filter"]
        self.state = catalog_state(products, self.filter)

    def filter_by_name(self, text):
        """Applies the filter and returns the reply; a changed state gets the next revision and is saved first."""
        with self.lock:
            state = catalog_state(self.products, text)
            if state != self.state:
                revision = self.revision + 1
                self.save(revision, text)
                self.revision, self.filter, self.state = revision, text, state
            return {"revision": self.revision, "screen": self.screen()}

    def screen(self):
        return {"id": SCREEN_ID, "route": ROUTE, "parameters": {}, "presentation": "push", "state": self.state}

    def save(self, revision, text):
        """Replaces the session's file durably: temporary file, fsync, rename, fsync of the folder."""
        if not self.path:
            return
        record = {
            "session": self.name,
            "revision": revision,
            "stack": [
                {
                    "id": SCREEN_ID,
                    "route": ROUTE,
                    "parameters": {},
                    "presentation": "push",
                    "restorable": {"filter": text},
                }
            ],
        }
        temporary = f"{self.path}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(record, file)
            file.flush()
            os.fsync(file.fileno())
        os.rename(temporary, self.path)
        folder = os.open(os.path.dirname(self.path), os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


# MARK: - Service


def navigation_error(name, **parameters):
    return varlink.VarlinkError({"error": f"{INTERFACE}.{name}", "parameters": parameters})


def make_service(interface_dir, sessions):
    service = varlink.Service(
        vendor="NavHost",
        product="navhost-peer",
        version="1",
        url="",
        interface_dir=interface_dir,
    )

    @service.interface(INTERFACE)
    class Navigation:
        def Send(self, session, screen, intent, arguments):
            found = sessions.get(session or "main")
            if found is None:
                raise navigation_error("SessionNotFound", session=session or "main")
            if screen is not None and screen != SCREEN_ID:
                raise navigation_error("ScreenNotFound", screen=screen)
            if intent != "onChangedFilter":
                raise navigation_error("IntentNotFound", intent=intent)
            text = (arguments or {}).get("text")
            if not isinstance(text, str):
                reason = "missing member \"text\"" if text is None else "expected a string"
                raise navigation_error("InvalidIntentArguments", intent=intent, reason=f"{reason} (at {intent}.text)")
            return found.filter_by_name(text)

    return service


# MARK: - Main


def main():
    parser = argparse.ArgumentParser(description="The Products catalog screen's Send, served with PyPI varlink.")
    parser.add_argument("address", help="where to listen, as unix:/path/to/socket")
    parser.add_argument("--state-dir", help="where each state change is saved (fsync) before the reply")
    parser.add_argument(
        "--session",
        action="append",
        metavar="NAME=ROUTE",
        help="a session and its root route (only products.list); repeat for more (default: main=products.list)",
    )
    parser.add_argument(
        "--catalog",
        default=str(REPOSITORY / "Plugins/Products/Resources/products.json"),
        help="the catalog file (default: %(default)s)",
    )
    parser.add_argument(
        "--interface-dir",
        default=str(REPOSITORY / "Sources/NavHostWire/Interfaces"),
        help="the folder of io.navhost.Navigation.varlink (default: %(default)s)",
    )
    options = parser.parse_args()
    if not options.address.startswith("unix:"):
        parser.error("the address must be unix:/path")

    products = load_catalog(options.catalog)
    if options.state_dir:
        os.makedirs(os.path.join(options.state_dir, "sessions"), mode=0o700, exist_ok=True)
    sessions = {}
    for spec in options.session or ["main=" + ROUTE]:
        name, _, route = spec.partition("=")
        if route != ROUTE:
            parser.error(f"--session {spec}: the peer serves only {ROUTE}")
        sessions[name] = Session(name, products, options.state_dir)

    class RequestHandler(varlink.RequestHandler):
        service = make_service(options.interface_dir, sessions)

    # Said before the socket listens: the benchmark reads this line as soon as the socket accepts.
    versions = f"Python {sys.version.split()[0]}, varlink {importlib.metadata.version('varlink')}"
    print(f"navhost-peer ({versions}): serving {options.address}", file=sys.stderr, flush=True)
    server = varlink.ThreadingServer(options.address, RequestHandler)
    # A stop must not wait for clients that are still connected.
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
