package import Logging
package import NIOCore
import NIOEmbedded
package import NavHostVarlink
import Synchronization

/// One Varlink server connection served in-process, over NIO's `NIOAsyncTestingChannel` instead of a socket.
///
/// The bytes written here go through exactly what an accepted socket goes through — the partial-message timeout,
/// the NUL framing with its size limit, json-c, call parsing, the connection's state machine, parameter validation
/// and dispatch — because the connection is set up by `VarlinkServer.makeConnection` and served by
/// `VarlinkServer.serveConnection`, the two functions the server runs for every socket it admits. What it leaves
/// out belongs to the listening socket: `SO_PEERCRED` (the caller says who the peer is) and the connection limits.
///
/// Time does not pass on the testing channel's event loop, so the partial-message timeout never fires here.
///
/// ```swift
/// let connection = try await InProcessVarlinkConnection.start(service: service)
/// await connection.write(Array(#"{"method":"org.varlink.service.GetInfo"}"#.utf8) + [0])
/// await connection.endInput()
/// while let message = await connection.nextMessage() { … }   // nil once the server closed the connection
/// await connection.finish()
/// ```
package final class InProcessVarlinkConnection: Sendable {
    private let channel: NIOAsyncTestingChannel
    private let served: Task<Void, Never>
    private let shutdownHandler: ShutdownHandler
    /// What a write held past the message ``nextMessage()`` returned: the server writes a batch of replies as one.
    private let unread = Unread()

    private final class Unread: Sendable {
        let bytes = Mutex(ByteBuffer())
    }

    /// Holds what `serveConnection` hands over to start the connection's graceful shutdown.
    private final class ShutdownHandler: Sendable {
        let handler = Mutex<(@Sendable () -> Void)?>(nil)
    }

    private init(channel: NIOAsyncTestingChannel, served: Task<Void, Never>, shutdownHandler: ShutdownHandler) {
        self.channel = channel
        self.served = served
        self.shutdownHandler = shutdownHandler
    }

    /// Sets up the connection's handlers and starts serving it.
    ///
    /// - Parameters:
    ///   - service: The interfaces and handlers.
    ///   - configuration: Limits and error names, as the server would use them.
    ///   - peer: The credentials handlers see; `nil` as for a connection whose credentials could not be read.
    ///   - logger: Where the connection logs.
    package static func start(
        service: VarlinkService,
        configuration: VarlinkServerConfiguration = VarlinkServerConfiguration(),
        peer: VarlinkPeerCredentials? = nil,
        logger: Logger = Logger(label: "navhost.in-process", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> InProcessVarlinkConnection {
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: SocketAddress(unixDomainSocketPath: "/navhost/in-process"))
        let connection = try await channel.testingEventLoop.executeInContext {
            try VarlinkServer.makeConnection(
                channel,
                service: service,
                peer: peer,
                configuration: configuration,
                logger: logger
            )
        }
        let shutdownHandler = ShutdownHandler()
        let served = Task {
            await VarlinkServer.serveConnection(connection, logger: logger) { handler in
                shutdownHandler.handler.withLock { $0 = handler }
            }
        }
        return InProcessVarlinkConnection(channel: channel, served: served, shutdownHandler: shutdownHandler)
    }

    /// Delivers `bytes` as one read from the peer. Errors are the connection's to handle (it closes on a protocol
    /// violation); writing to a closed connection does nothing.
    package func write(_ bytes: some Sequence<UInt8>) async {
        _ = try? await channel.writeInbound(ByteBuffer(bytes: bytes))
    }

    /// Ends the peer's input, as a client that half-closes its socket after writing.
    package func endInput() async {
        let channel = self.channel
        try? await channel.testingEventLoop.executeInContext {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
    }

    /// Starts the server's graceful shutdown for this connection, as `VarlinkServer.shutdownGracefully()` does.
    package func shutDown() {
        let handler = shutdownHandler.handler.withLock { $0 }
        handler?()
    }

    /// The next message the server wrote, terminator included, in the order written; `nil` once the server has
    /// closed the connection and every message has been read.
    ///
    /// A write that carries several messages (a batch of replies) is cut at their terminators. Empty writes are
    /// skipped: they carry no bytes a socket's peer could read (the server writes one to wait until its last replies
    /// are out before it closes).
    ///
    /// Cancelling the task that waits here closes the connection.
    package func nextMessage() async -> ByteBuffer? {
        let channel = self.channel
        let unread = self.unread
        return await withTaskCancellationHandler {
            if let message = unread.bytes.withLock({ Self.cutMessage(from: &$0) }) { return message }
            while let write = try? await channel.waitForOutboundWrite(as: ByteBuffer.self) {
                guard write.readableBytes > 0 else { continue }
                let message = unread.bytes.withLock { held -> ByteBuffer? in
                    var write = write
                    held.writeBuffer(&write)
                    return Self.cutMessage(from: &held)
                }
                if let message { return message }
            }
            // Whatever is left was written without its terminator: the last, unfinished message.
            return unread.bytes.withLock { held -> ByteBuffer? in
                guard held.readableBytes > 0 else { return nil }
                defer { held.clear() }
                return held
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// The first message `buffer` holds, terminator included, taken from it; `nil` when it holds no whole one.
    private static func cutMessage(from buffer: inout ByteBuffer) -> ByteBuffer? {
        guard let end = buffer.readableBytesView.firstIndex(of: 0) else { return nil }
        return buffer.readSlice(length: end - buffer.readerIndex + 1)
    }

    /// Waits until the server has finished with the connection, then stops the channel's event loop.
    package func finish() async {
        await served.value
        _ = try? await channel.finish(acceptAlreadyClosed: true)
        await channel.testingEventLoop.shutdownGracefully()
    }
}
