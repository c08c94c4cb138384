public import NavHostJSON
public import NavHostWire

/// A request the navigation core refused, with the reason in words and as data.
///
/// Refused requests change nothing: no screen is built, popped or sent anything, and the revision stays.
/// `code` says what kind of refusal it was; new codes may be added. `parameters` carries the facts a client can act
/// on (the unknown route ID, the session name), and is what the Varlink layer sends as the error's parameters.
public struct NavigationError: Error, Sendable, Hashable {
    /// The kind of refusal: the error's name in `io.navhost.Navigation`.
    public typealias Code = NavigationErrorName

    /// The kind of refusal.
    public var code: Code
    /// What was refused and why, for a person.
    public var message: String
    /// Facts a client can act on, keyed by name.
    public var parameters: JSONObject
    /// Whether the intent this error answers ran, or ran in part, before it: a ViewModel that threw the SDK's
    /// `IntentError` itself, or an intent delivered again to a screen a reload rebuilt. What the intent changed
    /// meanwhile stays, so the error is answered once that is on disk, as `IntentFailed` is; an intent refused before
    /// its ViewModel saw it changed nothing and is answered at once.
    package var intentRan = false

    public init(_ code: Code, _ message: String, parameters: JSONObject = JSONObject()) {
        self.code = code
        self.message = message
        self.parameters = parameters
    }
}

// MARK: - Factories

extension NavigationError {
    static func sessionNotFound(_ name: String) -> Self {
        Self(.sessionNotFound, "no session \"\(name)\"", parameters: ["session": .string(name)])
    }

    static func screenNotFound(_ id: String) -> Self {
        Self(.screenNotFound, "no screen \"\(id)\" on the stack", parameters: ["screen": .string(id)])
    }

    static func routeNotFound(_ id: String) -> Self {
        Self(.routeNotFound, "no loaded feature offers route \"\(id)\"", parameters: ["route": .string(id)])
    }

    static func screenNotOnTop(_ id: String) -> Self {
        Self(
            .screenNotOnTop,
            "screen \"\(id)\" is not on top: its ViewModel's pop would close a screen above it that it did not open",
            parameters: ["screen": .string(id)]
        )
    }

    static func stackTooDeep(_ limit: Int) -> Self {
        Self(
            .stackTooDeep,
            "the stack would hold more than \(limit) screens, the most this session allows",
            parameters: ["limit": .int(Int64(limit))]
        )
    }

    static func storageFailed(_ reason: String) -> Self {
        Self(
            .storageFailed,
            "the change could not be saved, so it was taken back: \(reason)",
            parameters: ["reason": .string(reason)]
        )
    }

    static func sessionExists(_ name: String) -> Self {
        Self(.sessionExists, "a session \"\(name)\" is open already", parameters: ["session": .string(name)])
    }

    static func invalidSessionName(_ name: String) -> Self {
        Self(
            .invalidSessionName,
            "\"\(name)\" cannot name a session: use 1 to 64 letters, digits, -, _ and ., not starting with .",
            parameters: ["session": .string(name)]
        )
    }

    static func sessionConfigured(_ name: String) -> Self {
        Self(
            .sessionConfigured,
            "session \"\(name)\" is declared by the daemon's configuration (its files, its --session options, or, "
                + "when they declare none, the default main), which alone opens and closes it",
            parameters: ["session": .string(name)]
        )
    }

    static func screenClosed(_ id: String) -> Self {
        Self(.screenClosed, "screen \"\(id)\" left the stack before it answered", parameters: ["screen": .string(id)])
    }
}

// MARK: - CustomStringConvertible

extension NavigationError: CustomStringConvertible {
    public var description: String { "\(code): \(message)" }
}
