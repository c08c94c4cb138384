import NIOCore
import NIOEmbedded
import NIOTestUtils
import NavHostVarlink
import Testing

@Suite("Splitting a byte stream into Varlink messages")
struct FrameDecoderTests {
    @Test("Drip-fed, whole and batched input give the same messages")
    func verifier() throws {
        let pairs: [(String, [ByteBuffer])] = [
            (#"{"method":"a.b.C"}"# + "\0", [ByteBuffer(string: #"{"method":"a.b.C"}"#)]),
            ("1\0" + "22\0" + "333\0", ["1", "22", "333"].map { ByteBuffer(string: $0) }),
            ("\0", [ByteBuffer()]),
            (String(repeating: "x", count: 100) + "\0", [ByteBuffer(string: String(repeating: "x", count: 100))]),
        ]
        try ByteToMessageDecoderVerifier.verifyDecoder(stringInputOutputPairs: pairs) {
            VarlinkFrameDecoder(maxMessageSize: 1024)
        }
    }

    @Test("A message over the limit fails before its terminator arrives")
    func tooLargeWithoutTerminator() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder(maxMessageSize: 8)))
        #expect(throws: VarlinkProtocolError.self) {
            try channel.writeInbound(ByteBuffer(string: "123456789"))
        }
        _ = try? channel.finish()
    }

    @Test("A message exactly at the limit passes; one byte more fails")
    func limitIsInclusive() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder(maxMessageSize: 4)))
        try channel.writeInbound(ByteBuffer(string: "1234\0"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "1234"))
        #expect(throws: VarlinkProtocolError.self) {
            try channel.writeInbound(ByteBuffer(string: "12345\0"))
        }
        _ = try? channel.finish()
    }

    @Test("The stream ending inside a message is an error; trailing white space is not")
    func endOfStream() throws {
        let truncated = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder()))
        try truncated.writeInbound(ByteBuffer(string: #"{"method""#))
        #expect(throws: VarlinkProtocolError.self) { try truncated.finish() }

        let whitespace = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder()))
        try whitespace.writeInbound(ByteBuffer(string: "{}\0 \n"))
        #expect(try whitespace.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "{}"))
        #expect(try whitespace.finish().isClean)
    }
}
