public import NavHostJSON
import NavHostWire

/// A request the navigation core refused, with the reason in words and as data.
///
/// Refused requests change nothing: no screen is built, popped or sent anything, and the revision stays.
/// `code` says what kind of refusal it was; new codes may be added. `parameters` carries the facts a client can act
/// on (the unknown route ID, the session name), and is what the Varlink layer sends as the error's parameters.
public struct NavigationError: Error, Sendable, Hashable {
    /// The kind of refusal.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let base: NavigationErrorName
        private init(_ base: NavigationErrorName) { self.base = base }

        /// No session has that name.
        public static let sessionNotFound = Code(.sessionNotFound)
        /// No screen of the session has that ID.
        public static let screenNotFound = Code(.screenNotFound)
        /// No loaded feature offers that route.
        public static let routeNotFound = Code(.routeNotFound)
        /// The route exists but its parameters do not fit it.
        public static let invalidRouteParameters = Code(.invalidRouteParameters)
        /// The screen's ViewModel has no intent by that name.
        public static let intentNotFound = Code(.intentNotFound)
        /// The intent exists but its arguments do not fit it.
        public static let invalidIntentArguments = Code(.invalidIntentArguments)
        /// The ViewModel threw while handling the intent.
        public static let intentFailed = Code(.intentFailed)
        /// The intent did not finish within the time limit; the screen shows an error.
        public static let intentTimedOut = Code(.intentTimedOut)
        /// Only the root is on the stack; there is nothing to pop.
        public static let cannotPopRoot = Code(.cannotPopRoot)
        /// `dismiss` with no modal screen shown.
        public static let noModalPresented = Code(.noModalPresented)
        /// `popTo` a route that no screen on the stack shows.
        public static let routeNotOnStack = Code(.routeNotOnStack)
        /// `replace` with no routes: a stack needs a root.
        public static let emptyStack = Code(.emptyStack)
        /// The screen left the stack while the request was under way; its answer is dropped.
        public static let screenClosed = Code(.screenClosed)
        /// The feature could not build the ViewModel for a route.
        public static let viewModelFailed = Code(.viewModelFailed)
        /// The change could not be written to the state folder (full, read-only, failing); it was taken back.
        public static let storageFailed = Code(.storageFailed)
        /// The stack already holds the most screens the session allows (`SessionOptions.maxStackDepth`).
        public static let stackTooDeep = Code(.stackTooDeep)
        /// A session of that name is open already.
        public static let sessionExists = Code(.sessionExists)
        /// The name cannot name a session: 1 to 64 letters, digits, `-`, `_` and `.`, not starting with `.`.
        public static let invalidSessionName = Code(.invalidSessionName)
        /// The configuration declares the session, so it cannot be closed over the wire.
        public static let sessionConfigured = Code(.sessionConfigured)
        /// A recording given to `Replay` cannot be read.
        public static let invalidRecording = Code(.invalidRecording)

        /// The code's name as Varlink errors spell it, like `RouteNotFound`.
        public var name: String { base.rawValue }

        public var description: String { name }
    }

    /// The kind of refusal.
    public var code: Code
    /// What was refused and why, for a person.
    public var message: String
    /// Facts a client can act on, keyed by name.
    public var parameters: JSONObject

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
            "session \"\(name)\" is declared by the daemon's configuration: take it out there to close it",
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
