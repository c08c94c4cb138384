import IntegrationHarness
import NIOCore
import NIOPosix
import NavHostVarlink
import Testing

// The pending-call limit (maxPendingCallsPerConnection) through a real socket: calls past it are not taken until an
// earlier one is answered, whether their frames arrived with the calls before them (kept) or later (left unread), and
// a shutdown answers the calls taken and drops the frames kept behind the limit, whatever they hold.
//
// Each test serves on one event loop: the listener's, its connections' and the handlers' are the same, so a task
// submitted to it runs after whatever the server handed it before.

extension ServerTests {
    /// A call to `Wait` at `gate`, framed.
    static func waitCall(at gate: String) -> String {
        #"{"method":"org.navhost.test.Wait","parameters":{"gate":"\#(gate)"}}"# + "\0"
    }

    /// A call to `Note` with `text`, framed.
    static func noteCall(_ text: String) -> String {
        #"{"method":"org.navhost.test.Note","parameters":{"text":"\#(text)"}}"# + "\0"
    }

    /// The reply of a `Wait` call at `gate`.
    static func waitReply(at gate: String) -> String {
        #"{"parameters":{"gate":"\#(gate)"}}"#
    }

    /// Two calls that wait up to the limit, a third in the same write (its frame kept) and a fourth in a write of
    /// its own once the two wait (left in the socket): neither of the last two runs until the first call is
    /// answered, though the second finished before it; then all four are answered in order.
    @Test("Calls past the pending-call limit run only once an earlier one is answered, and are answered in order")
    func callsPastThePendingLimit() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maxPendingCallsPerConnection = 2
        // Not what holds the later calls back: up to 4 handlers could run at once.
        configuration.maxConcurrentCallsPerConnection = 4
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        try await RunningServer.with(configuration: configuration, eventLoopGroup: loop) { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.write(Self.waitCall(at: "a") + Self.waitCall(at: "b") + Self.noteCall("kept"))
            #expect(try await server.gates.nextWaiting(2) == ["a", "b"])
            try await connection.write(Self.noteCall("unread"))
            // b's reply waits for a's: both calls still count.
            server.gates.release("b")
            // A note of another connection, made once the server had the two later calls in hand.
            let other = try await VarlinkClient.connect(unixSocketPath: server.path)
            _ = try await other.call("org.navhost.test.Note", parameters: ["text": "other"])
            try await other.close()
            server.gates.release("a")
            let replies = try await connection.readMessages(4)
            #expect(replies == [Self.waitReply(at: "a"), Self.waitReply(at: "b"), "{}", "{}"])
            // Over the limit, the two later calls ran as they came, before the other connection's.
            #expect(try await server.recorder.nextNotes(3) == ["other", "kept", "unread"])
        }
    }

    /// The limit filled with two calls that wait, a malformed frame kept behind them, then the shutdown: the first call
    /// answered makes room, and the frame is dropped instead of taken, so the second call is answered too.
    @Test("A shutdown answers the calls received and drops a malformed frame kept behind the pending-call limit")
    func shutdownDropsTheFramesKept() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maxPendingCallsPerConnection = 2
        configuration.maxConcurrentCallsPerConnection = 2
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        try await RunningServer.with(configuration: configuration, eventLoopGroup: loop) { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.write(Self.waitCall(at: "a") + Self.waitCall(at: "b") + "not json\0")
            // The calls started: the connection is served, and told of the shutdown.
            #expect(try await server.gates.nextWaiting(2) == ["a", "b"])
            server.server.shutdownGracefully()
            // The connection took the shutdown before this runs.
            try await loop.submit {}.get()
            // One at a time: a's answer makes room for the frame while b still runs. (Answered together, both replies
            // would go out before the frame was read.)
            server.gates.release("a")
            #expect(try await connection.readMessages(1) == [Self.waitReply(at: "a")])
            server.gates.release("b")
            // Before, the frame was taken once a was answered, and failed the connection: b got no reply.
            #expect(try await connection.readUntilClosed() == [Self.waitReply(at: "b")])
        }
    }
}
