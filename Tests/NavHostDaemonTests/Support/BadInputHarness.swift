import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// The pieces every row of the bad-input table (docs/robustness.md) is checked with: a daemon shared by the rows
// that cannot disturb one another, a well-behaved client connected before the bad input, and a raw socket to send
// the bad input on.

/// Starts one daemon for a whole suite; its tests find it in ``SharedDaemon/current``.
///
/// Each row works in a session of its own (all rooted at `home.main`), so rows that run at the same time cannot see
/// each other's changes. The daemon must still stop cleanly once the last row is done.
struct SharedDaemon: SuiteTrait, TestScoping {
    /// The daemon of the suite being run.
    @TaskLocal static var current: DaemonProcess?

    let sessions: [String]
    let arguments: [String]
    let fixtures: [String]

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: fixtures),
            sessions: sessions.map { "\($0)=home.main" },
            extraArguments: arguments
        )
        try await Self.$current.withValue(daemon) { try await function() }
        #expect(daemon.isRunning, "the shared daemon survived every row")
        #expect(try await daemon.terminate() == 0, "and stops cleanly after them")
    }

    /// The suite's daemon.
    static var daemon: DaemonProcess {
        get throws { try #require(current, "the suite needs the .sharedDaemon trait") }
    }
}

extension Trait where Self == SharedDaemon {
    /// One daemon for the suite, with a session per name, more command-line arguments, and the test fixture plugins
    /// `fixtures` beside the example plugins.
    static func sharedDaemon(sessions: [String], arguments: [String] = [], fixtures: [String] = []) -> Self {
        SharedDaemon(sessions: sessions, arguments: arguments, fixtures: fixtures)
    }
}

/// A well-behaved client of one session, connected before a row's bad input.
///
/// It makes a change and has it acknowledged first; afterwards ``confirm(unchanged:)`` checks that the daemon is
/// still running, still answers this connection, and still holds the acknowledged change.
struct Witness {
    let daemon: DaemonProcess
    let client: VarlinkClient
    let session: String
    /// The session's revision and stack (route IDs, root first) when the change was acknowledged.
    let acknowledgedRevision: Int64
    let acknowledgedStack: [String]

    /// Connects, and pushes `home.main` onto `session`: a screen that keeps no state, so the push is the session's last
    /// change until the row makes its own.
    static func connect(to daemon: DaemonProcess, session: String) async throws -> Witness {
        let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let reply = try await client.call(
            "io.navhost.Navigation.Navigate",
            parameters: ["session": .string(session), "route": "home.main"]
        )
        let revision = try #require(reply["revision"]?.intValue, "Navigate is acknowledged with a revision")
        let (_, stack) = try await Self.stack(of: session, with: client)
        return Witness(
            daemon: daemon,
            client: client,
            session: session,
            acknowledgedRevision: revision,
            acknowledgedStack: stack
        )
    }

    /// Checks that the daemon survived the bad input and lost nothing it acknowledged.
    ///
    /// - Parameter unchanged: Whether the row left the session alone, so that it must be exactly as acknowledged;
    ///   otherwise the acknowledged stack must still be at its bottom.
    func confirm(unchanged: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(daemon.isRunning, "the daemon is still up", sourceLocation: sourceLocation)
        let (revision, stack) = try await Self.stack(of: session, with: client)
        if unchanged {
            #expect(revision == acknowledgedRevision, "nothing changed the session", sourceLocation: sourceLocation)
            #expect(stack == acknowledgedStack, "the acknowledged stack is intact", sourceLocation: sourceLocation)
        } else {
            #expect(revision >= acknowledgedRevision, sourceLocation: sourceLocation)
            #expect(
                Array(stack.prefix(acknowledgedStack.count)) == acknowledgedStack,
                "the acknowledged stack is intact under the row's own changes",
                sourceLocation: sourceLocation
            )
        }
        let info = try await client.call("org.varlink.service.GetInfo")
        #expect(info["product"] == "navhostd", sourceLocation: sourceLocation)
        try await client.close()
    }

    private static func stack(of session: String, with client: VarlinkClient) async throws -> (Int64, [String]) {
        let reply = try await client.call("io.navhost.Navigation.Stack", parameters: ["session": .string(session)])
        let snapshot = try #require(reply["snapshot"])
        let revision = try #require(snapshot["revision"]?.intValue)
        let routes = snapshot["stack"]?.arrayValue?.compactMap { $0["route"]?.stringValue } ?? []
        return (revision, routes)
    }
}

/// A raw connection for one piece of bad input.
extension UnixStreamSocket {
    /// Connects to `daemon`'s socket.
    static func connect(to daemon: DaemonProcess) async throws -> UnixStreamSocket {
        try await connect(to: daemon.socketPath)
    }

    /// Sends one call message (with its NUL) built from `members`.
    func send(_ members: JSONObject) async throws {
        var bytes = try JSONValue.object(members).serializedBytes()
        bytes.append(0)
        let (_, error) = await write(bytes)
        if let error { throw error }
    }

    /// Sends calls and reads their replies, parsed.
    func call(_ members: JSONObject) async throws -> JSONValue {
        try await send(members)
        let replies = try await readMessages(1)
        return try JSONParser().parse(Array(try #require(replies.first, "a reply").utf8))
    }
}

/// A call message as the wire carries it, with its NUL terminator.
func callMessage(_ method: String, _ parameters: JSONObject = [:], more: Bool = false, oneway: Bool = false)
    throws -> [UInt8]
{
    var members: JSONObject = ["method": .string(method), "parameters": .object(parameters)]
    if more { members["more"] = true }
    if oneway { members["oneway"] = true }
    return try JSONValue.object(members).serializedBytes() + [0]
}
