public import NIOCore

/// Closes a connection whose peer has stopped reading what the server writes to it.
///
/// A client that sends calls (or starts a `more` call) and then never reads would otherwise hold the connection, and
/// the replies waiting for it, forever: the server's writes suspend while the socket is full (back pressure), and a
/// connection whose writer is suspended cannot even be shut down gracefully. This handler starts a timer when the
/// channel becomes unwritable — the socket's buffer is full and NIO holds more than its write-buffer high water mark
/// (64 KiB by default) — and cancels it when the channel is writable again, which needs the peer to have read enough
/// to bring NIO's backlog under the low water mark. When the timer fires, it fires
/// ``VarlinkProtocolError/Code/sendTimeout`` down the pipeline and closes the channel, which fails the suspended
/// writes so that whoever waits on them is released.
///
/// A client that reads slowly but steadily keeps the channel writable from time to time and is never closed.
public final class VarlinkSendTimeoutHandler: ChannelInboundHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    /// How long the channel may stay unwritable.
    public let timeout: TimeAmount

    private var timer: Scheduled<Void>?
    private let onTimeout: (@Sendable (VarlinkProtocolError) -> Void)?

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - timeout: How long the channel may stay unwritable before the connection is closed.
    ///   - onTimeout: Called with the error just before the channel is closed, so that whoever was writing can tell
    ///     why its write failed.
    public init(timeout: TimeAmount, onTimeout: (@Sendable (VarlinkProtocolError) -> Void)? = nil) {
        self.timeout = timeout
        self.onTimeout = onTimeout
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        noteWritabilityChanged(context: context)
        context.fireChannelWritabilityChanged()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    // MARK: - The timer, for a handler that keeps it in its own context

    /// Starts or cancels the timer as the channel's writability says, as ``channelWritabilityChanged(context:)`` does
    /// before it passes the event on. When the timer fires, its error goes down the pipeline from `context`, and the
    /// channel is closed from there.
    ///
    /// The server's `VarlinkServerFrameHandler` keeps this handler out of the pipeline and calls it with its own
    /// context, so that a writability change crosses one handler, not three.
    func noteWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancelTimer()
        } else if timer == nil {
            schedule(context: context)
        }
    }

    /// Stops the timer: the channel closed, or the handler left it.
    func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    private func schedule(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            timer = nil
            guard !context.channel.isWritable else { return }
            let error = VarlinkProtocolError(
                code: .sendTimeout,
                message: "the client left its replies unread for longer than \(timeout)"
            )
            onTimeout?(error)
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }
}
