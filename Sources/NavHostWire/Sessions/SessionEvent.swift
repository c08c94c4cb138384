public import NavHostJSON
public import NavHostKit

/// One change to a session; every change has the next revision number.
public struct SessionEvent: Sendable, Hashable, Codable {
    /// What changed.
    public enum Change: Sendable, Hashable {
        /// A screen was pushed or presented on top.
        case pushed(ScreenSnapshot)
        /// Screens were removed from the top (by pop, popTo, popToRoot or dismiss), topmost first.
        case popped([ScreenID])
        /// The whole stack was replaced; the new stack, root first.
        case replaced([ScreenSnapshot])
        /// A screen's ViewModel state changed.
        case stateChanged(ScreenID, JSONValue)
        /// A screen's error was set (its intent ran out of time) or cleared (`nil`).
        case errorChanged(ScreenID, String?)
    }

    /// The session's revision after this change.
    public var revision: UInt64
    /// What changed.
    public var change: Change

    public init(revision: UInt64, change: Change) {
        self.revision = revision
        self.change = change
    }

    private enum CodingKeys: String, CodingKey {
        case revision, kind, screen, removed, stack, screenID, state, error
    }

    /// The wire form, as `io.navhost.Navigation`'s `Event` type: `{"revision":7,"kind":"pushed","screen":{…}}`,
    /// `{"revision":8,"kind":"popped","removed":["s3"]}`, `{"revision":9,"kind":"replaced","stack":[{…}]}`,
    /// `{"revision":10,"kind":"stateChanged","screenID":"s4","state":{…}}`,
    /// `{"revision":11,"kind":"errorChanged","screenID":"s4","error":"…"}` (no `error`: cleared).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(revision, forKey: .revision)
        switch change {
        case .pushed(let screen):
            try container.encode("pushed", forKey: .kind)
            try container.encode(screen, forKey: .screen)
        case .popped(let ids):
            try container.encode("popped", forKey: .kind)
            try container.encode(ids, forKey: .removed)
        case .replaced(let screens):
            try container.encode("replaced", forKey: .kind)
            try container.encode(screens, forKey: .stack)
        case .stateChanged(let id, let state):
            try container.encode("stateChanged", forKey: .kind)
            try container.encode(id, forKey: .screenID)
            try container.encode(state, forKey: .state)
        case .errorChanged(let id, let error):
            try container.encode("errorChanged", forKey: .kind)
            try container.encode(id, forKey: .screenID)
            try container.encodeIfPresent(error, forKey: .error)
        }
    }

    /// The wire form, exactly what ``encode(to:)`` produces, built without the `Codable` machinery: a change goes to
    /// every watcher, so this is on the hot path.
    public var jsonValue: JSONValue {
        var members: JSONObject = ["revision": jsonInteger(revision)]
        switch change {
        case .pushed(let screen):
            members["kind"] = "pushed"
            members["screen"] = screen.jsonValue
        case .popped(let ids):
            members["kind"] = "popped"
            members["removed"] = .array(ids.map { .string($0.rawValue) })
        case .replaced(let screens):
            members["kind"] = "replaced"
            members["stack"] = .array(screens.map(\.jsonValue))
        case .stateChanged(let id, let state):
            members["kind"] = "stateChanged"
            members["screenID"] = .string(id.rawValue)
            members["state"] = state
        case .errorChanged(let id, let error):
            members["kind"] = "errorChanged"
            members["screenID"] = .string(id.rawValue)
            if let error { members["error"] = .string(error) }
        }
        return .object(members)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        revision = try container.decode(UInt64.self, forKey: .revision)
        switch try container.decode(String.self, forKey: .kind) {
        case "pushed":
            change = .pushed(try container.decode(ScreenSnapshot.self, forKey: .screen))
        case "popped":
            change = .popped(try container.decode([ScreenID].self, forKey: .removed))
        case "replaced":
            change = .replaced(try container.decode([ScreenSnapshot].self, forKey: .stack))
        case "stateChanged":
            change = .stateChanged(
                try container.decode(ScreenID.self, forKey: .screenID),
                try container.decode(JSONValue.self, forKey: .state)
            )
        case "errorChanged":
            change = .errorChanged(
                try container.decode(ScreenID.self, forKey: .screenID),
                try container.decodeIfPresent(String.self, forKey: .error)
            )
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .kind,
                in: container,
                debugDescription: "unknown event kind \"\(other)\""
            )
        }
    }
}
