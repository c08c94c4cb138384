import NavHostCore
import NavHostKit
import NavHostVarlink

// The input parameters of io.navhost.Navigation's methods, as their definitions declare them. The Varlink layer has
// validated them against the definition before they are read here, so every member has its declared type: they are
// read straight from the JSON object, without the `Codable` machinery (every call goes through here).

struct SessionParameters: Sendable {
    var session: String?

    init(_ parameters: JSONObject) {
        session = parameters["session"]?.stringValue
    }
}

struct RouteParameters: Sendable {
    var session: String?
    var route: String
    var parameters: JSONObject?

    init(_ parameters: JSONObject) {
        session = parameters["session"]?.stringValue
        route = parameters["route"]?.stringValue ?? ""
        self.parameters = parameters["parameters"]?.objectValue
    }

    var request: RouteRequest { RouteRequest(id: route, parameters: parameters ?? JSONObject()) }
}

struct ReplaceParameters: Sendable {
    struct RouteSpec: Sendable {
        var route: String
        var parameters: JSONObject?
    }

    var session: String?
    var routes: [RouteSpec]

    init(_ parameters: JSONObject) {
        session = parameters["session"]?.stringValue
        routes = (parameters["routes"]?.arrayValue ?? []).map { spec in
            RouteSpec(route: spec["route"]?.stringValue ?? "", parameters: spec["parameters"]?.objectValue)
        }
    }

    var requests: [RouteRequest] {
        routes.map { RouteRequest(id: $0.route, parameters: $0.parameters ?? JSONObject()) }
    }
}

struct SendParameters: Sendable {
    var session: String?
    var screen: String?
    var intent: String
    var arguments: JSONObject?

    init(_ parameters: JSONObject) {
        session = parameters["session"]?.stringValue
        screen = parameters["screen"]?.stringValue
        intent = parameters["intent"]?.stringValue ?? ""
        arguments = parameters["arguments"]?.objectValue
    }
}

struct WatchParameters: Sendable {
    /// What follows the first reply.
    enum Changes: String, Sendable {
        /// One event per revision (the default).
        case events
        /// One RFC 7386 merge patch of the session's document per revision.
        case mergePatch = "merge-patch"
    }

    var session: String?
    var resumeFrom: Int64?
    var changes: Changes

    /// - Throws: `InvalidParameter` for a `resumeFrom` beyond `Int64` (the definition's `int` admits up to `2^64-1`),
    ///   or `changes` other than `events` and `merge-patch`.
    init(_ parameters: JSONObject) throws(VarlinkError) {
        session = parameters["session"]?.stringValue
        switch parameters["changes"] {
        case nil, .null?: changes = .events
        case .string(let text)?:
            guard let changes = Changes(rawValue: text) else { throw VarlinkError.invalidParameter("changes") }
            self.changes = changes
        default: throw VarlinkError.invalidParameter("changes")
        }
        switch parameters["resumeFrom"] {
        case nil, .null?: resumeFrom = nil
        case .int(let revision)?: resumeFrom = revision
        default: throw VarlinkError.invalidParameter("resumeFrom")
        }
    }
}

struct OpenSessionParameters: Sendable {
    var entry: OpenedSessionsFile.Entry

    /// - Throws: `InvalidParameter` for a negative or zero option, or one beyond what the daemon can hold.
    init(_ parameters: JSONObject) throws(VarlinkError) {
        let options = parameters["options"]?.objectValue ?? JSONObject()
        var maxStackDepth: Int?
        switch options["maxStackDepth"] {
        case nil, .null?: maxStackDepth = nil
        case .int(let depth)? where depth > 0 && depth <= 1 << 20: maxStackDepth = Int(depth)
        default: throw VarlinkError.invalidParameter("options.maxStackDepth")
        }
        var timeout: Int64?
        switch options["intentTimeoutMilliseconds"] {
        case nil, .null?: timeout = nil
        case .int(let milliseconds)? where milliseconds > 0 && milliseconds <= 86_400_000: timeout = milliseconds
        default: throw VarlinkError.invalidParameter("options.intentTimeoutMilliseconds")
        }
        entry = OpenedSessionsFile.Entry(
            name: parameters["name"]?.stringValue ?? "",
            root: parameters["root"]?.stringValue ?? "",
            parameters: parameters["parameters"]?.objectValue ?? JSONObject(),
            maxStackDepth: maxStackDepth,
            intentTimeoutMilliseconds: timeout
        )
    }
}

struct ReplayParameters: Sendable {
    var recording: JSONValue
    var session: String?
    var to: UInt64?

    /// - Throws: `InvalidParameter` for a negative `to`.
    init(_ parameters: JSONObject) throws(VarlinkError) {
        recording = parameters["recording"] ?? .null
        session = parameters["session"]?.stringValue
        switch parameters["to"] {
        case nil, .null?: to = nil
        case .int(let revision)? where revision >= 0: to = UInt64(revision)
        default: throw VarlinkError.invalidParameter("to")
        }
    }
}
