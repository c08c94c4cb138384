internal import NavHostClient
internal import NavHostJSON

// MARK: - InspectorMessage

/// The JSON messages the inspector pushes to its page over the websocket, one text frame each.
///
/// Every message has a `type`:
/// - `snapshot`: everything, first on every websocket: `connected`, `timelineCapacity`, `sessions` (by name, each
///   with its `document` and `timeline`), `plugins`, `routes`.
/// - `session`: one session moved: its `document` now and the timeline `entry` that got it there.
/// - `sessionClosed`: a session is gone.
/// - `plugins`: the plugins and the routes they offer, after any change.
/// - `daemon`: whether the inspector is `connected` to the daemon.
/// - `result`: the answer to one of the page's requests (`id`), `ok` and a `message` for a person.
enum InspectorMessage {
    /// The first message on a websocket.
    static func snapshot(
        connected: Bool,
        timelineCapacity: Int,
        sessions: [(name: String, document: JSONValue, timeline: InspectorTimeline)],
        plugins: JSONValue,
        routes: JSONValue
    ) -> JSONValue {
        var sessionMembers = JSONObject()
        for session in sessions {
            sessionMembers[session.name] = [
                "document": session.document,
                "timeline": .array(session.timeline.entries.map(entry)),
            ]
        }
        return [
            "type": "snapshot",
            "connected": .bool(connected),
            "timelineCapacity": .int(Int64(timelineCapacity)),
            "sessions": .object(sessionMembers),
            "plugins": plugins,
            "routes": routes,
        ]
    }

    /// A session reached a new revision.
    static func session(_ name: String, document: JSONValue, entry: InspectorTimeline.Entry) -> JSONValue {
        ["type": "session", "session": .string(name), "document": document, "entry": Self.entry(entry)]
    }

    /// A session is gone.
    static func sessionClosed(_ name: String) -> JSONValue {
        ["type": "sessionClosed", "session": .string(name)]
    }

    /// The plugins and routes changed.
    static func plugins(_ plugins: JSONValue, routes: JSONValue) -> JSONValue {
        ["type": "plugins", "plugins": plugins, "routes": routes]
    }

    /// The daemon came or went.
    static func daemon(connected: Bool) -> JSONValue {
        ["type": "daemon", "connected": .bool(connected)]
    }

    /// The answer to the page's request `id`.
    static func result(id: JSONValue, ok: Bool, message: String) -> JSONValue {
        ["type": "result", "id": id, "ok": .bool(ok), "message": .string(message)]
    }

    /// One timeline entry on the wire: `{"revision":…,"kind":"patch","change":{…}}`.
    static func entry(_ entry: InspectorTimeline.Entry) -> JSONValue {
        ["revision": .int(entry.revision), "kind": .string(entry.kind.rawValue), "change": entry.change]
    }

    /// `message` as one line of JSON text; an unserializable value (it never is) becomes an empty object.
    static func text(_ message: JSONValue) -> String {
        (try? message.serializedString()) ?? "{}"
    }
}
