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
        let bytes = unwrapInboundIn(data)
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
        context.fireChannelRead(data)
    }

    public func read(context: ChannelHandlerContext) {
        readRequested = true
        context.read()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
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

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
