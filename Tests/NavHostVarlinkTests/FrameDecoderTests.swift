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

    /// The two ways to put the framing in a pipeline: the server's handler, and NIO's generic one around the decoder.
    enum Framing: CaseIterable, CustomTestStringConvertible {
        case handler, byteToMessage

        func channel(maxMessageSize: Int = VarlinkFrameDecoder.defaultMaxMessageSize) -> EmbeddedChannel {
            switch self {
            case .handler:
                EmbeddedChannel(handler: VarlinkFrameHandler(maxMessageSize: maxMessageSize))
            case .byteToMessage:
                EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder(maxMessageSize: maxMessageSize)))
            }
        }

        var testDescription: String { self == .handler ? "VarlinkFrameHandler" : "ByteToMessageHandler" }
    }

    @Test("The handler cuts drip-fed, whole and batched input into the same messages", arguments: [1, 2, 5, 1000])
    func handlerChunks(chunkSize: Int) throws {
        let input = Array(
            (#"{"method":"a.b.C"}"# + "\0" + "1\0" + "22\0" + "\0" + String(repeating: "x", count: 100) + "\0").utf8
        )
        let expected = [#"{"method":"a.b.C"}"#, "1", "22", "", String(repeating: "x", count: 100)]
        let channel = Framing.handler.channel(maxMessageSize: 1024)
        var start = 0
        while start < input.count {
            let end = min(start + chunkSize, input.count)
            try channel.writeInbound(ByteBuffer(bytes: input[start..<end]))
            start = end
        }
        var messages: [String] = []
        while let message = try channel.readInbound(as: ByteBuffer.self) { messages.append(String(buffer: message)) }
        #expect(messages == expected)
        #expect(try channel.finish().isClean)
    }

    @Test("A message over the limit fails before its terminator arrives", arguments: Framing.allCases)
    func tooLargeWithoutTerminator(framing: Framing) throws {
        let channel = framing.channel(maxMessageSize: 8)
        #expect(throws: VarlinkProtocolError.self) {
            try channel.writeInbound(ByteBuffer(string: "12345"))
            try channel.writeInbound(ByteBuffer(string: "6789"))
        }
        _ = try? channel.finish()
    }

    @Test("A message exactly at the limit passes; one byte more fails", arguments: Framing.allCases)
    func limitIsInclusive(framing: Framing) throws {
        let channel = framing.channel(maxMessageSize: 4)
        try channel.writeInbound(ByteBuffer(string: "1234\0"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "1234"))
        #expect(throws: VarlinkProtocolError.self) {
            try channel.writeInbound(ByteBuffer(string: "12345\0"))
        }
        _ = try? channel.finish()
    }

    @Test("After an error, nothing more comes out", arguments: Framing.allCases)
    func nothingAfterError(framing: Framing) throws {
        let channel = framing.channel(maxMessageSize: 4)
        #expect(throws: VarlinkProtocolError.self) { try channel.writeInbound(ByteBuffer(string: "12345\0")) }
        try? channel.writeInbound(ByteBuffer(string: "1\0"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        _ = try? channel.finish()
    }

    @Test("The stream ending inside a message is an error; trailing white space is not", arguments: Framing.allCases)
    func endOfStream(framing: Framing) throws {
        let truncated = framing.channel()
        try truncated.writeInbound(ByteBuffer(string: #"{"method":"a"}"# + "\0" + #"{"method""#))
        #expect(try truncated.readInbound(as: ByteBuffer.self) == ByteBuffer(string: #"{"method":"a"}"#))
        #expect(throws: VarlinkProtocolError.self) { try truncated.finish() }

        let whitespace = framing.channel()
        try whitespace.writeInbound(ByteBuffer(string: "{}\0 \n"))
        #expect(try whitespace.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "{}"))
        #expect(try whitespace.finish().isClean)
    }

    @Test("Input closed inside a message is an error, told before the event", arguments: Framing.allCases)
    func inputClosed(framing: Framing) throws {
        let channel = framing.channel()
        try channel.writeInbound(ByteBuffer(string: "{"))
        #expect(throws: VarlinkProtocolError.self) {
            try channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            try channel.throwIfErrorCaught()
        }
        _ = try? channel.finish()
    }

    @Test("The stream ending while a message is handed on: the rest is still checked once the messages before it are")
    func endWhileHandingOn() throws {
        /// Ends the input when the first message reaches it, as a handler that closes on a bad message would.
        final class EndOnFirstMessage: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            typealias InboundOut = ByteBuffer
            private var seen = false

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                if !seen {
                    seen = true
                    context.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
                }
                context.fireChannelRead(data)
            }
        }
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(VarlinkFrameHandler(), EndOnFirstMessage())
        #expect(throws: VarlinkProtocolError.self) {
            try channel.writeInbound(ByteBuffer(string: "{}\0[]\0" + #"{"method""#))
        }
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "{}"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "[]"))
        _ = try? channel.finish()
    }

    @Test("The partial-message limit is each message's own: one that finishes in time resets it for the next")
    func partialMessageLimitPerMessage() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(
            handler: VarlinkPartialMessageTimeoutHandler(timeout: .milliseconds(500)),
            loop: loop
        )
        // Each message is finished 300 ms after it began, and each read that finishes one begins the next. After
        // each read the channel asks for the next, as a channel that reads on its own does.
        try channel.writeInbound(ByteBuffer(string: "{\"a\""))
        channel.read()
        for _ in 0..<5 {
            loop.advanceTime(by: .milliseconds(300))
            try channel.writeInbound(ByteBuffer(string: ":1}\0{\"a\""))
            channel.read()
            try channel.throwIfErrorCaught()
        }
        // The last one is left unfinished: it fails once it is over the limit, not before.
        loop.advanceTime(by: .milliseconds(400))
        try channel.throwIfErrorCaught()
        loop.advanceTime(by: .milliseconds(200))
        #expect(throws: VarlinkProtocolError.self) { try channel.throwIfErrorCaught() }
        _ = try? channel.finish()
    }
}
