public import NavHostJSON
public import NavHostKit

// The input parameters of the methods of io.navhost.Navigation and io.navhost.Plugins, as the interface definitions
// declare them: the client writes them with `jsonObject`, the daemon reads them with `init(_:)`.
//
// The daemon's Varlink layer has validated a call against the definition before it is read here, so every member has
// its declared type: they are read straight from the JSON object, without the `Codable` machinery (every call goes
// through here). A value of the right type that a method still cannot take throws ``InvalidParameterError``.

// MARK: - SessionParameters

/// The input of `Stack`, `Pop`, `PopToRoot`, `Dismiss` and `Recording`: the session, `main` when `nil`.
public struct SessionParameters: Sendable, Hashable {
    /// The session; `main` when `nil`.
    public var session: String?

    /// Creates the parameters of a call.
    public init(session: String? = nil) {
        self.session = session
    }

    /// Reads the parameters of a call the daemon's validator has checked against the definition.
    public init(_ parameters: JSONObject) {
        session = parameters["session"]?.stringValue
    }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject {
        var parameters = JSONObject()
        if let session { parameters["session"] = .string(session) }
        return parameters
    }
}

// MARK: - NameParameters

/// The input of `CloseSession`, and of `io.navhost.Plugins`' `Reload` and `Unload`: a session's or a plugin's name.
public struct NameParameters: Sendable, Hashable {
    /// The name: a session's, or a plugin's.
    public var name: String

    /// Creates the parameters of a call.
    public init(name: String) {
        self.name = name
    }

    /// Reads the parameters of a call the daemon's validator has checked against the definition.
    public init(_ parameters: JSONObject) {
        name = parameters["name"]?.stringValue ?? ""
    }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject { ["name": .string(name)] }
}

// MARK: - RouteParameters

/// The input of `Navigate`, `Present` and `PopTo`: a route and its parameters.
public struct RouteParameters: Sendable, Hashable {
    /// The session; `main` when `nil`.
    public var session: String?
    /// The route's ID, like `products.detail`.
    public var route: String
    /// `nil` sends none: for `PopTo`, any screen of the route matches.
    public var parameters: JSONObject?

    /// Creates the parameters of a call.
    public init(session: String? = nil, route: String, parameters: JSONObject? = nil) {
        self.session = session
        self.route = route
        self.parameters = parameters
    }

    /// Reads the parameters of a call the daemon's validator has checked against the definition.
    public init(_ parameters: JSONObject) {
        session = parameters["session"]?.stringValue
        route = parameters["route"]?.stringValue ?? ""
        self.parameters = parameters["parameters"]?.objectValue
    }

    /// The route as the navigation core takes it.
    public var request: RouteRequest { RouteRequest(id: route, parameters: parameters ?? JSONObject()) }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject {
        var members = SessionParameters(session: session).jsonObject
        members["route"] = .string(route)
        if let parameters { members["parameters"] = .object(parameters) }
        return members
    }
}

// MARK: - ReplaceParameters

/// The input of `Replace`: the new stack, root first.
public struct ReplaceParameters: Sendable, Hashable {
    /// The session; `main` when `nil`.
    public var session: String?
    /// The new stack's routes, root first.
    public var routes: [RouteRequest]

    /// Creates the parameters of a call.
    public init(session: String? = nil, routes: [RouteRequest]) {
        self.session = session
        self.routes = routes
    }

    /// Reads the parameters of a call the daemon's validator has checked against the definition.
    public init(_ parameters: JSONObject) {
        session = parameters["session"]?.stringValue
        routes = (parameters["routes"]?.arrayValue ?? []).map { spec in
            RouteRequest(id: spec["route"]?.stringValue ?? "", parameters: spec["parameters"]?.objectValue ?? [:])
        }
    }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject {
        var members = SessionParameters(session: session).jsonObject
        members["routes"] = .array(
            routes.map { request in
                var spec: JSONObject = ["route": .string(request.id)]
                if !request.parameters.isEmpty { spec["parameters"] = .object(request.parameters) }
                return .object(spec)
            }
        )
        return members
    }
}

// MARK: - SendParameters

/// The input of `Send`: an intent, to the top screen or the one named.
public struct SendParameters: Sendable, Hashable {
    /// The session; `main` when `nil`.
    public var session: String?
    /// The screen's ID; the top screen when `nil`.
    public var screen: ScreenID?
    /// The intent's name, like `onChangedFilter`.
    public var intent: String
    /// The intent's arguments by label.
    public var arguments: JSONObject

    /// Creates the parameters of a call.
    public init(session: String? = nil, screen: ScreenID? = nil, intent: String, arguments: JSONObject = [:]) {
        self.session = session
        self.screen = screen
        self.intent = intent
        self.arguments = arguments
    }

    /// Reads the parameters of a call the daemon's validator has checked against the definition.
    ///
    /// The daemon reads a `Send` read straight from json-c without a `JSONObject` (NavHostService's
    /// `SendParameters+Varlink.swift`, the same members): this reads one read the general way. The object is borrowed:
    /// an initializer takes its arguments owned unless told otherwise, and a copy of the SDK's `JSONObject` goes through
    /// the runtime's witnesses.
    public init(_ parameters: borrowing JSONObject) {
        session = parameters["session"]?.stringValue
        screen = parameters["screen"]?.stringValue.map(ScreenID.init)
        intent = parameters["intent"]?.stringValue ?? ""
        arguments = parameters["arguments"]?.objectValue ?? JSONObject()
    }

    /// The intent as a screen takes it.
    public var message: IntentMessage { IntentMessage(name: intent, arguments: arguments) }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject {
        var members = SessionParameters(session: session).jsonObject
        if let screen { members["screen"] = .string(screen.rawValue) }
        members["intent"] = .string(intent)
        if !arguments.isEmpty { members["arguments"] = .object(arguments) }
        return members
    }
}

// MARK: - WatchParameters

/// The input of `Watch`.
public struct WatchParameters: Sendable, Hashable {
    /// What follows the first reply.
    public enum Changes: String, Sendable, Hashable {
        /// One event per revision (the default).
        case events
        /// One RFC 7386 merge patch of the session's document per revision.
        case mergePatch = "merge-patch"
    }

    /// The session; `main` when `nil`.
    public var session: String?
    /// The revision the client holds: the events after it come first, if they are still held.
    public var resumeFrom: UInt64?
    /// What follows the first reply.
    public var changes: Changes

    /// Creates the parameters of a call.
    public init(session: String? = nil, resumeFrom: UInt64? = nil, changes: Changes = .events) {
        self.session = session
        self.resumeFrom = resumeFrom
        self.changes = changes
    }

    /// A negative `resumeFrom` counts as 0.
    ///
    /// - Throws: ``InvalidParameterError`` for a `resumeFrom` that is not an `Int64` (the server's validation
    ///   refuses one first), or `changes` other than `events` and `merge-patch`.
    public init(_ parameters: JSONObject) throws(InvalidParameterError) {
        session = parameters["session"]?.stringValue
        switch parameters["changes"] {
        case nil, .null?: changes = .events
        case .string(let text)?:
            guard let changes = Changes(rawValue: text) else { throw InvalidParameterError("changes") }
            self.changes = changes
        default: throw InvalidParameterError("changes")
        }
        switch parameters["resumeFrom"] {
        case nil, .null?: resumeFrom = nil
        case .int(let revision)?: resumeFrom = UInt64(clamping: revision)
        default: throw InvalidParameterError("resumeFrom")
        }
    }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject {
        var members = SessionParameters(session: session).jsonObject
        if let resumeFrom { members["resumeFrom"] = .int(Int64(clamping: resumeFrom)) }
        if changes != .events { members["changes"] = .string(changes.rawValue) }
        return members
    }
}

// MARK: - OpenSessionParameters

/// The input of `OpenSession`: a new session's name, its root, and the options it sets itself.
///
/// Its `Codable` form, with the options beside the other members, is how the daemon keeps the sessions opened over
/// the wire (`OpenedSessionsFile`).
public struct OpenSessionParameters: Sendable, Hashable, Codable {
    /// The new session's name.
    public var name: String
    /// The route of the session's root screen.
    public var root: String
    /// The root route's parameters.
    public var parameters: JSONObject
    /// The most screens its stack may hold; the daemon's setting when `nil`.
    public var maxStackDepth: Int?
    /// How long an intent may take, in milliseconds; the daemon's setting when `nil`.
    public var intentTimeoutMilliseconds: Int64?

    /// Creates the parameters of a call.
    public init(
        name: String,
        root: String,
        parameters: JSONObject = [:],
        maxStackDepth: Int? = nil,
        intentTimeoutMilliseconds: Int64? = nil
    ) {
        self.name = name
        self.root = root
        self.parameters = parameters
        self.maxStackDepth = maxStackDepth
        self.intentTimeoutMilliseconds = intentTimeoutMilliseconds
    }

    /// - Throws: ``InvalidParameterError`` for a negative or zero option, or one beyond what the daemon can hold.
    public init(_ parameters: JSONObject) throws(InvalidParameterError) {
        let options = parameters["options"]?.objectValue ?? JSONObject()
        switch options["maxStackDepth"] {
        case nil, .null?: maxStackDepth = nil
        case .int(let depth)? where depth > 0 && depth <= 1 << 20: maxStackDepth = Int(depth)
        default: throw InvalidParameterError("options.maxStackDepth")
        }
        switch options["intentTimeoutMilliseconds"] {
        case nil, .null?: intentTimeoutMilliseconds = nil
        case .int(let milliseconds)? where milliseconds > 0 && milliseconds <= 86_400_000:
            intentTimeoutMilliseconds = milliseconds
        default: throw InvalidParameterError("options.intentTimeoutMilliseconds")
        }
        name = parameters["name"]?.stringValue ?? ""
        root = parameters["root"]?.stringValue ?? ""
        self.parameters = parameters["parameters"]?.objectValue ?? JSONObject()
    }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject {
        var members: JSONObject = ["name": .string(name), "root": .string(root)]
        if !parameters.isEmpty { members["parameters"] = .object(parameters) }
        var options = JSONObject()
        if let maxStackDepth { options["maxStackDepth"] = .int(Int64(maxStackDepth)) }
        if let intentTimeoutMilliseconds { options["intentTimeoutMilliseconds"] = .int(intentTimeoutMilliseconds) }
        if !options.isEmpty { members["options"] = .object(options) }
        return members
    }
}

// MARK: - ReplayParameters

/// The input of `Replay`: a recording (``SessionRecording/jsonValue``), the session to replay it as, and where to stop.
public struct ReplayParameters: Sendable, Hashable {
    /// The recording, in ``SessionRecording``'s JSON form.
    public var recording: JSONValue
    /// The new session's name; the first free `replay-N` when `nil`.
    public var session: String?
    /// Stop after the call that made this recorded revision, and leave the session open.
    public var to: UInt64?

    /// Creates the parameters of a call.
    public init(recording: JSONValue, session: String? = nil, to: UInt64? = nil) {
        self.recording = recording
        self.session = session
        self.to = to
    }

    /// - Throws: ``InvalidParameterError`` for a negative `to`.
    public init(_ parameters: JSONObject) throws(InvalidParameterError) {
        recording = parameters["recording"] ?? .null
        session = parameters["session"]?.stringValue
        switch parameters["to"] {
        case nil, .null?: to = nil
        case .int(let revision)? where revision >= 0: to = UInt64(revision)
        default: throw InvalidParameterError("to")
        }
    }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject {
        var members: JSONObject = ["recording": recording]
        if let session { members["session"] = .string(session) }
        if let to { members["to"] = .int(Int64(clamping: to)) }
        return members
    }
}

// MARK: - PathParameters

/// The input of `io.navhost.Plugins.Load`: the plugin's folder or library.
public struct PathParameters: Sendable, Hashable {
    /// The plugin's folder, or its library.
    public var path: String

    /// Creates the parameters of a call.
    public init(path: String) {
        self.path = path
    }

    /// Reads the parameters of a call the daemon's validator has checked against the definition.
    public init(_ parameters: JSONObject) {
        path = parameters["path"]?.stringValue ?? ""
    }

    /// The parameters as a call sends them; members left at their defaults are left out.
    public var jsonObject: JSONObject { ["path": .string(path)] }
}
