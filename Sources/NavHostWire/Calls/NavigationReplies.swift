public import NavHostJSON
public import NavHostKit

// The outputs of io.navhost.Navigation's methods. Each is `Codable` in the method's wire form, which the client
// decodes; the daemon writes the ones every navigation answers with `jsonObject`, the same form built without the
// `Codable` machinery (they are on the hot path).

// MARK: - PushResult

/// What `Navigate` and `Present` answer: the new screen and the revision its push made.
public struct PushResult: Sendable, Hashable, Codable {
    /// The session's revision after the push.
    public var revision: UInt64
    /// The new top screen, its ViewModel's state as it was right after the push.
    public var screen: ScreenSnapshot

    /// Creates a result, as a test double would.
    public init(revision: UInt64, screen: ScreenSnapshot) {
        self.revision = revision
        self.screen = screen
    }

    /// The reply's parameters.
    public var jsonObject: JSONObject { ["revision": jsonInteger(revision), "screen": screen.jsonValue] }
}

// MARK: - PopResult

/// What `Pop`, `PopToRoot`, `PopTo` and `Dismiss` answer: the screens removed, topmost first.
public struct PopResult: Sendable, Hashable, Codable {
    /// The session's revision after the change; unchanged when nothing was removed.
    public var revision: UInt64
    /// The IDs of the screens removed, topmost first; empty when nothing was (a `popToRoot` at the root).
    public var removed: [ScreenID]

    /// Creates a result, as a test double would.
    public init(revision: UInt64, removed: [ScreenID]) {
        self.revision = revision
        self.removed = removed
    }

    /// The reply's parameters.
    public var jsonObject: JSONObject {
        ["revision": jsonInteger(revision), "removed": .array(removed.map { .string($0.rawValue) })]
    }
}

// MARK: - ReplaceResult

/// What `Replace` answers: the new stack.
public struct ReplaceResult: Sendable, Hashable, Codable {
    /// The session's revision after the replacement.
    public var revision: UInt64
    /// The new stack, root first.
    public var stack: [ScreenSnapshot]

    /// Creates a result, as a test double would.
    public init(revision: UInt64, stack: [ScreenSnapshot]) {
        self.revision = revision
        self.stack = stack
    }

    /// The reply's parameters.
    public var jsonObject: JSONObject { ["revision": jsonInteger(revision), "stack": .array(stack.map(\.jsonValue))] }
}

// MARK: - SendResult

/// What `Send` answers once the screen's ViewModel has handled the intent.
public struct SendResult: Sendable, Hashable, Codable {
    /// The session's revision once the intent was handled.
    public var revision: UInt64
    /// The screen as it is then, or `nil` when handling the intent closed it.
    public var screen: ScreenSnapshot?

    /// Creates a result, as a test double would.
    public init(revision: UInt64, screen: ScreenSnapshot?) {
        self.revision = revision
        self.screen = screen
    }

    /// The reply's parameters.
    public var jsonObject: JSONObject {
        var members: JSONObject = ["revision": jsonInteger(revision)]
        if let screen { members["screen"] = screen.jsonValue }
        return members
    }

    /// The reply's parameters as JSON text, from the screen's text (its `jsonValue` serialized, `nil` for no screen):
    /// the text ``jsonObject`` serializes to, without building it or serializing the screen again.
    public static func serializedParameters(revision: UInt64, screen: [UInt8]?) throws(JSONError) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity((screen?.count ?? 0) + 40)
        text.append(contentsOf: #"{"revision":"#.utf8)
        try jsonInteger(revision).appendSerializedBytes(to: &text)
        if let screen {
            text.append(contentsOf: #","screen":"#.utf8)
            text.append(contentsOf: screen)
        }
        text.append(UInt8(ascii: "}"))
        return text
    }
}

// MARK: - The other replies

/// What `Stack` and `OpenSession` answer: the session at one revision.
public struct StackReply: Sendable, Hashable, Codable {
    /// The session at the revision of the reply.
    public var snapshot: SessionSnapshot

    /// Creates a reply, as a test double would.
    public init(snapshot: SessionSnapshot) {
        self.snapshot = snapshot
    }

    /// The reply's parameters.
    public var jsonObject: JSONObject { ["snapshot": snapshot.jsonValue] }
}

/// What `Sessions` answers: the open sessions' names.
public struct SessionsReply: Sendable, Hashable, Codable {
    /// The open sessions' names, sorted.
    public var sessions: [String]

    /// Creates a reply, as a test double would.
    public init(sessions: [String]) {
        self.sessions = sessions
    }

    /// The reply's parameters.
    public var jsonObject: JSONObject { ["sessions": .array(sessions.map(JSONValue.string))] }
}

/// What `Routes` answers: every route the loaded features offer.
public struct RoutesReply: Sendable, Hashable, Codable {
    /// Every route, feature by feature.
    public var routes: [RouteInfo]

    /// Creates a reply, as a test double would.
    public init(routes: [RouteInfo]) {
        self.routes = routes
    }
}

/// What `Recording` answers: the session's last calls, in ``SessionRecording``'s JSON form.
public struct RecordingReply: Sendable, Hashable, Codable {
    /// The recording, in ``SessionRecording``'s JSON form.
    public var recording: JSONValue

    /// Creates a reply, as a test double would.
    public init(recording: JSONValue) {
        self.recording = recording
    }

    /// The reply's parameters.
    public var jsonObject: JSONObject { ["recording": recording] }
}

/// What a method that answers with nothing answers (`CloseSession`, `io.navhost.Plugins.Unload`).
public struct EmptyReply: Sendable, Hashable, Codable {
    /// Creates a reply, as a test double would.
    public init() {}
}

// MARK: - Streamed replies

/// One reply of `Watch`: the session whole or one event; with `"changes": "merge-patch"`, the session's document
/// whole or one merge patch of it. `coalesced` marks a whole that stands in for changes the client was too slow to
/// take.
public enum WatchReply: Sendable, Hashable {
    case snapshot(SessionSnapshot, coalesced: Bool)
    case event(SessionEvent)
    /// ``SessionSnapshot/document``.
    case document(JSONValue, coalesced: Bool)
    /// An RFC 7386 merge patch of the document (``JSONMergePatch``).
    case patch(JSONValue)

    /// The reply's parameters.
    public var jsonObject: JSONObject {
        switch self {
        case .snapshot(let snapshot, let coalesced): Self.whole("snapshot", snapshot.jsonValue, coalesced: coalesced)
        case .event(let event): ["event": event.jsonValue]
        case .document(let document, let coalesced): Self.whole("document", document, coalesced: coalesced)
        case .patch(let patch): ["patch": patch]
        }
    }

    private static func whole(_ key: String, _ value: JSONValue, coalesced: Bool) -> JSONObject {
        var members: JSONObject = [key: value]
        if coalesced { members["coalesced"] = true }
        return members
    }
}

/// One reply of `WatchSessions`: every open session's name, or one session opened or closed.
public enum SessionListReply: Sendable, Hashable {
    case sessions([String], coalesced: Bool)
    case event(SessionListEvent)

    /// The reply's parameters.
    public var jsonObject: JSONObject {
        switch self {
        case .sessions(let names, let coalesced):
            var members = SessionsReply(sessions: names).jsonObject
            if coalesced { members["coalesced"] = true }
            return members
        case .event(let event):
            return ["event": ["kind": .string(event.kind.rawValue), "name": .string(event.name)]]
        }
    }
}
