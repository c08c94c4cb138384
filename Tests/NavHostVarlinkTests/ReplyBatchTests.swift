import IntegrationHarness
import NIOCore
import NIOPosix
import Testing

@testable import NavHostVarlink

@Suite("A connection's batch of replies")
struct ReplyBatchTests {
    private static func reply(_ text: String) -> ByteBuffer {
        ByteBuffer(string: text + "\0")
    }

    private static func parameters(_ text: String) -> VarlinkSerializedParameters {
        VarlinkSerializedParameters(text: Array(text.utf8))
    }

    private static func replies(_ buffer: ByteBuffer?) -> [String] {
        guard let buffer else { return [] }
        let text = String(buffer: buffer)
        return text.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test("Replies written straight into the batch and replies of their own go out together, in order")
    func keepsEveryReplyInOrder() {
        var batch = Connection.ReplyBatch()
        // Before, a reply of its own after one written straight into the empty batch was kept as its first, and lost.
        batch.append(Self.parameters(#"{"a":1}"#))
        batch.append(Self.reply(#"{"error":"io.navhost.Navigation.SessionNotFound"}"#))
        batch.append(Self.parameters(#"{"b":2}"#))
        #expect(
            Self.replies(batch.take()) == [
                #"{"parameters":{"a":1}}"#, #"{"error":"io.navhost.Navigation.SessionNotFound"}"#,
                #"{"parameters":{"b":2}}"#,
            ]
        )
        #expect(batch.isEmpty)
        batch.append(Self.reply("x"))
        #expect(Self.replies(batch.take()) == ["x"], "a batch of one reply")
        batch.append(Self.reply("y"))
        batch.append(Self.parameters("{}"))
        batch.append(Self.reply("z"))
        #expect(Self.replies(batch.take()) == ["y", "{}", "z"])
        #expect(batch.take() == nil)
    }

    @Test("A read of more calls than a batch holds is answered a batch at a time, while its later calls still run")
    func fullBatchGoesOutInsideTheRead() async throws {
        // An event loop of its own: the hold blocks it, and must not hold up other tests' connections.
        try await MultiThreadedEventLoopGroup.withEventLoopGroup(numberOfThreads: 1) { group in
            try await Self.sendBurstAndHold(on: group)
        }
    }

    private static func sendBurstAndHold(on group: MultiThreadedEventLoopGroup) async throws {
        try await RunningServer.with(eventLoopGroup: group) { server in
            let socket = try await UnixStreamSocket.connect(to: server.path)
            defer { socket.close() }
            // Served first: the time limit below is then the burst's alone.
            let first = #"{"method":"org.navhost.test.Echo","parameters":{"text":"first"}}"#
            #expect(await socket.write(first + "\0").error == nil)
            #expect(try await socket.readMessages(1) == [#"{"parameters":{"text":"first"}}"#])
            let count = Connection.ReplyBatch.maxReplies
            let echoes = (1...count).map { #"{"method":"org.navhost.test.Echo","parameters":{"text":"m\#($0)"}}"# }
            let hold = #"{"method":"org.navhost.test.Hold","parameters":{"gate":"h"}}"#
            // One write, which the server handles in one read stretch (two socket reads of it, both before
            // `channelReadComplete`: NIO reads up to four times while its buffer, 2,048 bytes at first, fills). The
            // hold then blocks the event loop until the test has the full batch's replies. Until session 54 a read's
            // replies waited for its end, which the hold kept back: none came until it was released.
            #expect(await socket.write((echoes + [hold]).map { $0 + "\0" }.joined()).error == nil)
            defer { server.gates.releaseHold("h") }  // when a read below fails, too
            let batch = try await socket.readMessages(count, within: .seconds(10))
            server.gates.releaseHold("h")  // now, or the last read waits out the hold
            #expect(batch == (1...count).map { #"{"parameters":{"text":"m\#($0)"}}"# })
            #expect(try await socket.readMessages(1) == [#"{"parameters":{"released":true}}"#])
        }
    }
}
