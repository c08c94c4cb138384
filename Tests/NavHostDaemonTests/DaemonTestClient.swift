import NavHostJSON
import NavHostTestSupport
import NavHostVarlink

/// A Varlink client for `io.navhost.Navigation`, with the small conveniences the daemon tests need.
struct NavigationClient {
    let client: VarlinkClient

    static func connect(to daemon: DaemonProcess) async throws -> NavigationClient {
        NavigationClient(client: try await VarlinkClient.connect(unixSocketPath: daemon.socketPath))
    }

    /// Calls `io.navhost.Navigation.<method>`.
    @discardableResult
    func call(_ method: String, _ parameters: JSONObject = [:]) async throws -> JSONObject {
        try await client.call("io.navhost.Navigation.\(method)", parameters: parameters)
    }

    /// The stack's route IDs, root first.
    func routes(session: String = "main") async throws -> [String] {
        try await snapshot(session: session)["stack"]?.arrayValue?.compactMap { $0["route"]?.stringValue } ?? []
    }

    /// The whole snapshot.
    func snapshot(session: String = "main") async throws -> JSONValue {
        try await call("Stack", ["session": .string(session)])["snapshot"] ?? .null
    }

    /// The top screen's state.
    func topState(session: String = "main") async throws -> JSONValue {
        try await snapshot(session: session)["stack"]?.arrayValue?.last?["state"] ?? .null
    }

    /// Follows the session; updates are Watch's replies.
    func watch(session: String = "main", resumeFrom: Int64? = nil) -> VarlinkReplySequence {
        var parameters: JSONObject = ["session": .string(session)]
        if let resumeFrom { parameters["resumeFrom"] = .int(resumeFrom) }
        return client.callMore("io.navhost.Navigation.Watch", parameters: parameters)
    }

    func close() async throws { try await client.close() }
}

/// Reads Watch replies until one satisfies `condition`, and returns it.
func next(
    in updates: inout VarlinkReplySequence.AsyncIterator,
    where condition: (JSONObject) -> Bool,
    within limit: Duration = .seconds(20)
) async throws -> JSONObject {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        guard let reply = try await updates.next() else { throw TimedOut(what: "a Watch reply: the stream ended") }
        if condition(reply) { return reply }
    }
    throw TimedOut(what: "a Watch reply that matches")
}

extension JSONObject {
    /// The `revision` of a reply, as an integer.
    var revision: Int64? { self["revision"]?.intValue }
}
