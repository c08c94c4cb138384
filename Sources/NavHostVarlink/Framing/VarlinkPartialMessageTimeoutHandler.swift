public import NIOCore

/// Fails a connection whose peer starts a message and does not finish it in time.
///
/// Without a limit, a peer could hold a connection (and the bytes of a half-sent message) forever. This handler
/// starts a timer when a read ends inside a message (its last byte is not the NUL terminator), cancels it when a
/// read ends on a terminator, and starts it afresh when a read finishes one message and ends inside the next: the
/// limit is each message's own. When the timer fires while the channel is waiting for input, it fires
/// ``VarlinkProtocolError/Code/partialMessageTimeout`` down the pipeline. While the application has paused reading
/// (back pressure), the peer is not to blame: the timer starts over instead.
///
/// Put it in front of the ``VarlinkFrameHandler``; it passes all data through unchanged.
public final class VarlinkPartialMessageTimeoutHandler: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    /// How long a message may stay unfinished.
    public let timeout: TimeAmount

    private var messageOpen = false
    private var readRequested = false
    private var timer: Scheduled<Void>?

    /// Creates the handler.
    ///
    /// - Parameter timeout: How long a message may stay unfinished while the channel waits for input.
    public init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        noteRead(unwrapInboundIn(data), context: context)
        context.fireChannelRead(data)
    }

    public func read(context: ChannelHandlerContext) {
        noteReadRequested()
        context.read()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    // MARK: - The timer, for a handler that keeps it in its own context

    /// Starts, restarts or cancels the timer for the bytes of one read, as ``channelRead(context:data:)`` does
    /// before it passes them on. When the timer fires, its error goes down the pipeline from `context`.
    ///
    /// The server's `VarlinkServerFrameHandler` keeps this handler out of the pipeline and calls it with its own
    /// context, so that a read crosses one handler, not three.
    func noteRead(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        readRequested = false
        if let last = bytes.readableBytesView.last {
            let wasOpen = messageOpen
            messageOpen = last != 0
            if !messageOpen {
                cancelTimer()
            } else if !wasOpen || Self.holdsTerminator(bytes) {
                // The message open now started in this read.
                cancelTimer()
                schedule(context: context)
            } else if timer == nil {
                schedule(context: context)
            }
        }
    }

    /// The channel asked for more input, as ``read(context:)`` notes before it passes the request on.
    func noteReadRequested() {
        readRequested = true
    }

    /// Stops the timer: the channel closed, or the handler left it.
    func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    private func schedule(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            timer = nil
            guard messageOpen else { return }
            guard readRequested else {
                schedule(context: context)
                return
            }
            context.fireErrorCaught(
                VarlinkProtocolError(
                    code: .partialMessageTimeout,
                    message: "a message stayed unfinished for longer than \(timeout)"
                )
            )
        }
    }

    private static func holdsTerminator(_ bytes: ByteBuffer) -> Bool {
        bytes.withUnsafeReadableBytes { $0.contains(0) }
    }
}
