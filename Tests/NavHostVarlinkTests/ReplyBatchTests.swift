import IntegrationHarness
import NIOCore
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
        try await RunningServer.with { server in
            let socket = try await UnixStreamSocket.connect(to: server.path)
            defer { socket.close() }
            let count = Connection.ReplyBatch.maxReplies
            let echoes = (1...count).map { #"{"method":"org.navhost.test.Echo","parameters":{"text":"m\#($0)"}}"# }
            let hold = #"{"method":"org.navhost.test.Hold","parameters":{"gate":"h"}}"#
            // One write, so one read brings every call: the hold then blocks the event loop that reads them until the
            // test has the full batch's replies. Until session 54 a read's replies waited for its end, which the hold
            // kept back: none came until it gave up.
            let written = await socket.write((echoes + [hold]).map { $0 + "\0" }.joined())
            #expect(written.error == nil)
            let batch = try await socket.readMessages(count, within: .seconds(3))
            server.gates.releaseHold("h")
            #expect(batch == (1...count).map { #"{"parameters":{"text":"m\#($0)"}}"# })
            #expect(try await socket.readMessages(1) == [#"{"parameters":{"released":true}}"#])
        }
    }
}
