import NIOCore
import NIOPosix
import NavHostJSON
package import NavHostVarlink

/// A bare client socket for tests: writes any bytes, reads NUL-terminated messages, sees when the server closes.
package final class RawVarlinkConnection: Sendable {
    private let channel: any Channel
    private let inbound: AsyncStream<ByteBuffer>

    private init(channel: any Channel, inbound: AsyncStream<ByteBuffer>) {
        self.channel = channel
        self.inbound = inbound
    }

    /// Hands each message to an `AsyncStream`, which ends when the connection's input does.
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let sink: AsyncStream<ByteBuffer>.Continuation

        init(sink: AsyncStream<ByteBuffer>.Continuation) { self.sink = sink }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            sink.yield(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            sink.finish()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event { sink.finish() }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            sink.finish()
            context.close(promise: nil)
        }
    }

    package static func connect(to path: String) async throws -> RawVarlinkConnection {
        let (inbound, sink) = AsyncStream.makeStream(of: ByteBuffer.self)
        let channel = try await ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(VarlinkFrameDecoder(maxMessageSize: 16 << 20)),
                        Collector(sink: sink)
                    )
                }
            }
            .connect(unixDomainSocketPath: path)
            .get()
        return RawVarlinkConnection(channel: channel, inbound: inbound)
    }

    /// Writes `text` as it is: no terminator is added.
    package func write(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Writes raw bytes.
    package func write(bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Writes a call message with its terminator.
    package func send(_ call: VarlinkCall) async throws {
        var buffer = ByteBuffer()
        try buffer.writeVarlinkMessage(call.jsonValue)
        try await channel.writeAndFlush(buffer)
    }

    /// Closes the writing side: the server sees the end of input.
    package func halfClose() async throws {
        try await channel.close(mode: .output)
    }

    /// Closes the connection.
    package func close() async throws {
        try await channel.close()
    }

    /// Reads `count` messages as text, or fewer if the server closes first.
    package func readMessages(_ count: Int, within limit: Duration = .seconds(10)) async throws -> [String] {
        let inbound = self.inbound
        return try await withTimeout(limit, "\(count) messages") {
            var messages: [String] = []
            for await message in inbound {
                messages.append(String(buffer: message))
                if messages.count == count { break }
            }
            return messages
        }
    }

    /// Reads `count` replies.
    package func readReplies(_ count: Int) async throws -> [VarlinkReply] {
        try await readMessages(count).map { try VarlinkReply(parsing: JSONParser().parse($0)) }
    }

    /// Reads until the server closes the connection; returns the messages that came before.
    package func readUntilClosed(within limit: Duration = .seconds(10)) async throws -> [String] {
        let inbound = self.inbound
        return try await withTimeout(limit, "the server to close the connection") {
            var messages: [String] = []
            for await message in inbound { messages.append(String(buffer: message)) }
            return messages
        }
    }
}
