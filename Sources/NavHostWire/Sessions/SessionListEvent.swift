/// A session opened or closed, as `WatchSessions` reports it (its `SessionListEvent` type).
public struct SessionListEvent: Sendable, Hashable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The session exists now: configured at start or on reload, or opened over the wire.
        case opened
        /// The session is gone: closed over the wire, or taken out of the configuration.
        case closed
    }

    /// What happened.
    public var kind: Kind
    /// The session's name.
    public var name: String

    /// Creates an event.
    public init(_ kind: Kind, _ name: String) {
        self.kind = kind
        self.name = name
    }
}
