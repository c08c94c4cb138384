// MARK: - InspectorPage

/// The inspector's one page: HTML with its style and script inline, so the binary serves it without any file
/// beside it and the browser fetches nothing else (no CDN, no fonts).
///
/// The script opens the websocket at `/ws`, keeps what the `snapshot` message and the later messages say (see
/// ``InspectorMessage``), and draws it with `textContent` only, so nothing a plugin puts in a screen's state can
/// become markup. Elements a test or a person looks for have IDs: `stack`, `state`, `intent-form`, `intent`,
/// `arguments`, `send`, `pop`, `result`, `timeline`, `diff`, `plugins`, `connection`.
enum InspectorPage {
    /// Headers that keep the page to itself: no framing, no other origins, no referrer (the address holds the
    /// token).
    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
                + "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
    ]

    /// The page.
    static let html = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>NavHost inspector</title>
        <style>
          :root { color-scheme: light dark; --muted: #666; --line: #ccc; --accent: #1a5fb4; --bad: #a51d2d; }
          body { font: 15px/1.45 system-ui, sans-serif; margin: 0; }
          header { display: flex; gap: 1em; align-items: baseline; padding: .6em 1em; border-bottom: 1px solid var(--line); }
          header h1 { font-size: 1.2em; margin: 0; }
          main { display: grid; grid-template-columns: minmax(16em, 1fr) minmax(22em, 2fr) minmax(18em, 1.3fr); gap: 1em; padding: 1em; }
          section { border: 1px solid var(--line); border-radius: 6px; padding: .5em .9em .9em; margin-bottom: 1em; min-width: 0; }
          h2 { font-size: 1.05em; margin: .3em 0 .5em; }
          ul.plain, ol.plain { list-style: none; padding: 0; margin: 0; }
          button { font: inherit; padding: .2em .7em; }
          button[aria-pressed="true"] { font-weight: bold; outline: 2px solid var(--accent); }
          #sessions li { margin: .2em 0; }
          #stack li { padding: .15em .3em; font-family: ui-monospace, monospace; }
          #stack li.top { background: color-mix(in srgb, var(--accent) 15%, transparent); font-weight: bold; }
          .muted { color: var(--muted); }
          .error { color: var(--bad); }
          .tree, .tree ul { list-style: none; margin: 0; padding-left: 1.1em; }
          .tree { padding-left: 0; font-family: ui-monospace, monospace; font-size: .92em; }
          .tree summary { cursor: pointer; }
          .key { color: var(--accent); }
          label { display: block; margin: .5em 0 .2em; }
          select, textarea { font: inherit; width: 100%; box-sizing: border-box; }
          textarea { font-family: ui-monospace, monospace; }
          .actions { display: flex; gap: .6em; margin-top: .6em; }
          #timeline { max-height: 18em; overflow-y: auto; }
          #timeline button { width: 100%; text-align: left; font-family: ui-monospace, monospace; font-size: .9em; }
          pre { white-space: pre-wrap; word-break: break-word; font-size: .88em; margin: .4em 0 0; }
          table { border-collapse: collapse; width: 100%; font-size: .92em; }
          th, td { text-align: left; padding: .2em .4em; border-bottom: 1px solid var(--line); vertical-align: top; }
          @media (max-width: 70em) { main { grid-template-columns: 1fr; } }
        </style>
        </head>
        <body>
        <header>
          <h1>NavHost inspector</h1>
          <p id="connection" role="status" aria-live="polite" class="muted">Connecting…</p>
        </header>
        <main>
          <div>
            <section aria-labelledby="sessions-heading">
              <h2 id="sessions-heading">Sessions</h2>
              <ul id="sessions" class="plain"></ul>
            </section>
            <section aria-labelledby="stack-heading">
              <h2 id="stack-heading">Stack</h2>
              <p class="muted">Root first; the top screen is in bold.</p>
              <ol id="stack" class="plain"></ol>
            </section>
            <section aria-labelledby="plugins-heading">
              <h2 id="plugins-heading">Plugins</h2>
              <table>
                <thead><tr><th scope="col">Plugin</th><th scope="col">Version</th><th scope="col">Status</th></tr></thead>
                <tbody id="plugins"></tbody>
              </table>
            </section>
          </div>
          <div>
            <section aria-labelledby="state-heading">
              <h2 id="state-heading">Top screen's state</h2>
              <p id="screen-error" class="error" hidden></p>
              <div id="state"></div>
            </section>
            <section aria-labelledby="act-heading">
              <h2 id="act-heading">Act on the top screen</h2>
              <form id="intent-form">
                <label for="intent">Intent</label>
                <select id="intent" name="intent"></select>
                <label for="arguments">Arguments: key=value pairs, by spaces or one per line, or one JSON object</label>
                <textarea id="arguments" name="arguments" rows="3" placeholder="key=value"></textarea>
                <div class="actions">
                  <button id="send" type="submit">Send intent</button>
                  <button id="pop" type="button">Pop the top screen</button>
                </div>
              </form>
              <p id="result" role="status" aria-live="polite"></p>
            </section>
          </div>
          <div>
            <section aria-labelledby="timeline-heading">
              <h2 id="timeline-heading">Revisions</h2>
              <p class="muted">Newest first. Choose one to see what it changed (its JSON merge patch).</p>
              <ol id="timeline" class="plain"></ol>
            </section>
            <section aria-labelledby="diff-heading">
              <h2 id="diff-heading">Diff</h2>
              <pre id="diff" class="muted">Choose a revision.</pre>
            </section>
          </div>
        </main>
        <script>
        "use strict";
        (function () {
          const view = {
            sessions: {}, plugins: [], routes: [], capacity: 200, connected: false,
            selected: null, revision: null, closed: new Set(), nextRequest: 1,
            preferred: decodeURIComponent((location.hash.match(/session=([^&]*)/) || [])[1] || "") || null,
          };
          const token = new URLSearchParams(location.search).get("token");
          // The token is in a cookie now; keep it out of the address bar and the history.
          if (token) history.replaceState(null, "", location.pathname + location.hash);

          const byId = (id) => document.getElementById(id);
          function element(tag, text, className) {
            const node = document.createElement(tag);
            if (text !== undefined) node.textContent = text;
            if (className) node.className = className;
            return node;
          }

          // MARK: Receiving

          function connect() {
            const address = "ws://" + location.host + "/ws" + (token ? "?token=" + encodeURIComponent(token) : "");
            const socket = new WebSocket(address);
            socket.onmessage = (event) => receive(JSON.parse(event.data));
            socket.onclose = () => {
              view.socket = null;
              showConnection("Not connected to the inspector; trying again…");
              setTimeout(connect, 1000);
            };
            view.socket = socket;
          }

          function receive(message) {
            switch (message.type) {
              case "snapshot":
                view.sessions = message.sessions;
                view.plugins = message.plugins;
                view.routes = message.routes;
                view.capacity = message.timelineCapacity;
                view.connected = message.connected;
                break;
              case "session": {
                const session = view.sessions[message.session] || { document: null, timeline: [] };
                session.document = message.document;
                session.timeline.push(message.entry);
                if (session.timeline.length > view.capacity) session.timeline.splice(0, session.timeline.length - view.capacity);
                view.sessions[message.session] = session;
                break;
              }
              case "sessionClosed":
                delete view.sessions[message.session];
                break;
              case "plugins":
                view.plugins = message.plugins;
                view.routes = message.routes;
                break;
              case "daemon":
                view.connected = message.connected;
                break;
              case "result":
                byId("result").textContent = message.message;
                byId("result").className = message.ok ? "" : "error";
                return;
            }
            render();
          }

          // MARK: Drawing

          function render() {
            const names = Object.keys(view.sessions).sort();
            if (view.preferred && names.includes(view.preferred)) {
              view.selected = view.preferred;
              view.preferred = null;
            }
            if (!names.includes(view.selected)) view.selected = names.includes("main") ? "main" : (names[0] || null);
            // A session asked for in the address (navctl inspect --session) that is not open: shown once it opens.
            const waiting = view.preferred && view.connected
              ? " Session " + view.preferred + " is not open; the page shows it once it opens" +
                (view.selected ? ", " + view.selected + " until then." : ".")
              : "";
            showConnection((view.connected ? "Live: following navhostd." : "navhostd is not reachable; trying again…") + waiting);
            renderSessions(names);
            const session = view.sessions[view.selected];
            const documentNow = session && session.document;
            const stack = (documentNow && documentNow.stack) || [];
            const top = stack.length ? documentNow.screens[stack[stack.length - 1]] : null;
            renderStack(documentNow, stack);
            renderState(stack[stack.length - 1], top);
            renderIntents(top, stack.length);
            renderTimeline(session);
            renderPlugins();
          }

          function showConnection(text) { byId("connection").textContent = text; }

          function renderSessions(names) {
            const list = byId("sessions");
            list.replaceChildren();
            if (!names.length) list.append(element("li", "No open sessions.", "muted"));
            for (const name of names) {
              const button = element("button", name);
              button.type = "button";
              button.setAttribute("aria-pressed", String(name === view.selected));
              button.onclick = () => { view.selected = name; view.preferred = null; view.revision = null; render(); };
              const item = element("li");
              item.append(button, element("span", "  revision " + (view.sessions[name].document || {}).revision, "muted"));
              list.append(item);
            }
          }

          function renderStack(documentNow, stack) {
            const list = byId("stack");
            list.replaceChildren();
            stack.forEach((id, index) => {
              const screen = documentNow.screens[id] || {};
              const parameters = Object.entries(screen.parameters || {}).map(([k, v]) => k + "=" + JSON.stringify(v)).join(" ");
              const item = element("li", id + "  " + screen.route + (parameters ? "  " + parameters : "") +
                (screen.presentation === "modal" ? "  (modal)" : ""));
              if (index === stack.length - 1) {
                item.className = "top";
                item.setAttribute("aria-current", "true");
              }
              list.append(item);
            });
          }

          function renderState(id, screen) {
            byId("state-heading").textContent = screen ? "State of " + id + " (" + screen.route + ")" : "Top screen's state";
            const error = byId("screen-error");
            error.hidden = !(screen && screen.error);
            error.textContent = screen && screen.error ? "Error: " + screen.error : "";
            const holder = byId("state");
            holder.replaceChildren();
            if (!screen) return;
            const tree = element("ul", undefined, "tree");
            tree.append(treeNode("state", screen.state, id));
            holder.append(tree);
          }

          function treeNode(key, value, path) {
            const item = element("li");
            if (value !== null && typeof value === "object") {
              const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
              const details = element("details");
              details.open = !view.closed.has(path);
              details.ontoggle = () => { details.open ? view.closed.delete(path) : view.closed.add(path); };
              const summary = element("summary");
              summary.append(element("span", key, "key"),
                element("span", Array.isArray(value) ? "  [" + entries.length + "]" : "  {" + entries.length + "}", "muted"));
              const children = element("ul");
              for (const [childKey, child] of entries) children.append(treeNode(childKey, child, path + "/" + childKey));
              details.append(summary, children);
              item.append(details);
            } else {
              item.append(element("span", key, "key"), document.createTextNode(": " + JSON.stringify(value)));
            }
            return item;
          }

          function renderIntents(top, depth) {
            const select = byId("intent");
            const route = top && view.routes.find((candidate) => candidate.route === top.route);
            const intents = route ? route.intents : [];
            // Rebuilt only when the intents change, so a list the user has open stays open.
            if (select.dataset.intents !== intents.join(" ")) {
              const chosen = select.value;
              select.replaceChildren(...intents.map((intent) => element("option", intent)));
              if (intents.includes(chosen)) select.value = chosen;
              select.dataset.intents = intents.join(" ");
            }
            byId("send").disabled = !intents.length;
            byId("pop").disabled = depth < 2;
            showArguments(route);
          }

          // The chosen intent's arguments, from the Routes reply, as the arguments box's placeholder: each with its type,
          // or the values it takes when it takes only some (an enum of the feature's).
          function describeArgument(argument) {
            const takes = argument.values && argument.values.length ? argument.values.join(" | ") : argument.type;
            return argument.name + "=… (" + takes + ")";
          }

          // The chosen intent's arguments, from the Routes reply, as the arguments box's placeholder.
          function showArguments(route) {
            const declared = route && route.intentArguments ? route.intentArguments[byId("intent").value] : undefined;
            const box = byId("arguments");
            if (!declared) box.placeholder = "key=value";
            else if (!declared.length) box.placeholder = "(no arguments)";
            else box.placeholder = declared.map(describeArgument).join("\n");
          }

          function renderTimeline(session) {
            const list = byId("timeline");
            list.replaceChildren();
            const entries = session ? session.timeline.slice().reverse() : [];
            for (const entry of entries) {
              const button = element("button", "r" + entry.revision + "  " + describe(entry));
              button.type = "button";
              button.setAttribute("aria-pressed", String(entry.revision === view.revision));
              button.onclick = () => { view.revision = entry.revision; render(); };
              const item = element("li");
              item.append(button);
              list.append(item);
            }
            const shown = entries.find((entry) => entry.revision === view.revision);
            byId("diff-heading").textContent = shown ? "Diff of revision " + shown.revision : "Diff";
            byId("diff").textContent = shown ? JSON.stringify(shown.change, null, 2) : "Choose a revision.";
            byId("diff").className = shown ? "" : "muted";
          }

          function describe(entry) {
            if (entry.kind === "document") return "watch started";
            if (entry.kind === "coalesced") return "caught up (revisions skipped)";
            const paths = [];
            (function walk(value, path) {
              if (paths.length > 3) return;
              if (value !== null && typeof value === "object" && !Array.isArray(value) && path.split(".").length < 4) {
                for (const [key, child] of Object.entries(value)) if (key !== "revision") walk(child, path ? path + "." + key : key);
              } else paths.push(path);
            })(entry.change, "");
            if (!paths.length) return "revision only";
            return paths.slice(0, 3).join(", ") + (paths.length > 3 ? ", …" : "");
          }

          function renderPlugins() {
            const body = byId("plugins");
            body.replaceChildren();
            for (const plugin of view.plugins) {
              const row = element("tr");
              const note = (plugin.quarantine && plugin.quarantine.message) ||
                (plugin.lastReloadFailure && "last reload refused: " + plugin.lastReloadFailure.message) || "";
              const status = element("td", plugin.state + (note ? ": " + note : ""));
              if (plugin.state !== "loaded") status.className = "error";
              row.append(element("th", plugin.name), element("td", plugin.version), status);
              row.firstChild.scope = "row";
              body.append(row);
            }
          }

          // MARK: Acting

          function request(body) {
            if (!view.socket || view.socket.readyState !== WebSocket.OPEN) {
              byId("result").textContent = "Not connected.";
              return;
            }
            body.id = view.nextRequest++;
            body.session = view.selected;
            byId("result").textContent = "Working…";
            byId("result").className = "muted";
            view.socket.send(JSON.stringify(body));
          }

          byId("intent-form").addEventListener("submit", (event) => {
            event.preventDefault();
            const session = view.sessions[view.selected];
            const stack = (session && session.document && session.document.stack) || [];
            request({ action: "send", screen: stack[stack.length - 1], intent: byId("intent").value,
                      arguments: byId("arguments").value });
          });
          byId("pop").addEventListener("click", () => request({ action: "pop" }));
          byId("intent").addEventListener("change", render);

          connect();
        })();
        </script>
        </body>
        </html>
        """#
}
