import CNavHostBench

/// Checks that a peer does the daemon's work: the screen a `Send` of ``probe`` answers with, from a peer, must be the
/// one navhostd answers with (the same JSON value, whatever the order of members and the spacing), or the peer's
/// figures would compare unlike work.
enum ScreenAgreement {
    /// The probe: a filter with white space around it and capitals, which matches some products of the catalog, so
    /// that the comparison covers the filter's rules, the rows and the prices as a customer reads them.
    static let probe = VarlinkMessage.send(session: "rt", intent: "onChangedFilter", arguments: #"{"text":" Engine "}"#)

    /// Sends ``probe`` once on a connection of its own and returns the reply's text.
    static func reply(socketPath: String) throws -> String {
        let connection = try RawConnection(path: socketPath)
        try connection.write(probe)
        return try connection.nextMessage { String(decoding: $0, as: UTF8.self) }
    }

    /// Throws unless `peerReply` carries the screen `daemonReply` does.
    ///
    /// - Parameter peer: Names the peer in the error.
    static func requireSameScreen(_ peerReply: String, as daemonReply: String, peer: String) throws {
        guard let daemon = screen(in: daemonReply) else {
            throw BenchError("navhostd's reply to the probe has no parameters.screen: \(daemonReply)")
        }
        defer { json_object_put(daemon) }
        guard let theirs = screen(in: peerReply) else {
            throw BenchError("the \(peer)'s reply to the probe has no parameters.screen: \(peerReply)")
        }
        defer { json_object_put(theirs) }
        guard json_object_equal(daemon, theirs) != 0 else {
            throw BenchError(
                "the \(peer) does not answer the probe as navhostd does:\n  navhostd: \(daemonReply)\n  "
                    + "\(peer): \(peerReply)"
            )
        }
    }

    /// `parameters.screen` of a reply, with a reference of its own (release it with `json_object_put`).
    private static func screen(in reply: String) -> OpaquePointer? {
        guard let root = json_tokener_parse(reply) else { return nil }
        defer { json_object_put(root) }
        var parameters: OpaquePointer?
        var screen: OpaquePointer?
        guard json_object_object_get_ex(root, "parameters", &parameters) != 0,
            json_object_object_get_ex(parameters, "screen", &screen) != 0, let screen
        else { return nil }
        return json_object_get(screen)
    }
}
