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
}
