import CNavHostBench

/// Checks that a peer does the daemon's work: a peer's replies to ``probes``, sent on a fresh session, must be the
/// ones navhostd gives (the same JSON values of `parameters`, revision and screen, whatever the order of members and
/// the spacing), or the peer's figures would compare unlike work.
enum ScreenAgreement {
    /// The probes, in order: a filter with white space around it and capitals that matches two products (the filter's
    /// rules, and prices in euros and pounds), then a blank filter, which shows the whole catalog (a price in dollars,
    /// a product out of stock). Each changes the screen's state, so each also checks the revision numbering.
    static let probes = [#"{"text":" Engine "}"#, #"{"text":"  "}"#].map { arguments in
        VarlinkMessage.send(session: "rt", intent: "onChangedFilter", arguments: arguments)
    }

    /// Sends the ``probes`` in order on a connection of its own and returns the replies' texts.
    static func replies(socketPath: String) throws -> [String] {
        let connection = try RawConnection(path: socketPath)
        return try probes.map { probe in
            try connection.write(probe)
            return try connection.nextMessage { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Throws unless each of `peerReplies` carries the `parameters` of navhostd's reply to the same probe.
    ///
    /// - Parameter peer: Names the peer in the error.
    static func requireSameReplies(_ peerReplies: [String], as daemonReplies: [String], peer: String) throws {
        for (theirReply, daemonReply) in zip(peerReplies, daemonReplies) {
            guard let daemon = parameters(of: daemonReply) else {
                throw BenchError("navhostd's reply to a probe has no parameters: \(daemonReply)")
            }
            defer { json_object_put(daemon) }
            guard let theirs = parameters(of: theirReply) else {
                throw BenchError("the \(peer)'s reply to a probe has no parameters: \(theirReply)")
            }
            defer { json_object_put(theirs) }
            guard json_object_equal(daemon, theirs) != 0 else {
                throw BenchError(
                    "the \(peer) does not answer a probe as navhostd does:\n  navhostd: \(daemonReply)\n  "
                        + "\(peer): \(theirReply)"
                )
            }
        }
    }

    /// The `parameters` of a reply, with a reference of its own (release it with `json_object_put`).
    private static func parameters(of reply: String) -> OpaquePointer? {
        guard let root = json_tokener_parse(reply) else { return nil }
        defer { json_object_put(root) }
        var parameters: OpaquePointer?
        guard json_object_object_get_ex(root, "parameters", &parameters) != 0, let parameters else { return nil }
        return json_object_get(parameters)
    }
}
