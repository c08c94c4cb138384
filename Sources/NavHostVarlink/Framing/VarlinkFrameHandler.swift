public import NIOCore

/// Splits a Varlink byte stream into messages in a channel's pipeline, by ``VarlinkFrameDecoder``'s rules: each
/// message goes on without its NUL terminator, and a message over the size limit, or a stream that ends inside one,
/// fires a ``VarlinkProtocolError`` down the pipeline; what arrives after that is dropped.
///
/// NIO's `ByteToMessageHandler` with a ``VarlinkFrameDecoder`` cuts the same messages, with two differences: after an
/// error this handler drops what arrives without a word (NIO's fires an error for each read), and removed from the
/// pipeline it drops the start of a message it holds (NIO's passes it on). This handler is not generic: NIO's
/// handler, generic over its decoder and compiled in another module, ran unspecialized and looked types up at run
/// time on every read, about 2,500 instructions per message (callgrind, one `Send` a read).
public final class VarlinkFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    // Exclusivity: `decoder` and `pending` skip the runtime's check of exclusive access (two per message cut). No two
    // accesses to either can overlap: both are private to the handler, which runs on its channel's event loop only,
    // and every access is a read, a whole write, or an in-place change by the decoder's or the buffer's own
    // synchronous methods; a message is handed on (to the receiver or down the pipeline, which may re-enter the
    // handler) only once those accesses have ended.
    @exclusivity(unchecked) private var decoder: VarlinkFrameDecoder
    /// What arrived and is not a whole message yet: the start of the next one.
    @exclusivity(unchecked) private var pending: ByteBuffer?
    /// Cutting messages off `pending` now: a read, or the end of the stream, that arrives while a message is handed
    /// on waits for this loop.
    private var cutting = false
    private var failed = false
    /// The stream has ended: once the messages before the end are handed on, only white space may be left.
    private var ended = false
    /// Takes each message cut instead of the next handler, when set: the server's connection, right behind the
    /// server's frame handler, takes its messages directly (`VarlinkServerFrameHandler`).
    var messageReceiver: ((ByteBuffer) -> Void)?

    /// Creates the handler.
    ///
    /// - Parameter maxMessageSize: The largest message accepted, in bytes, not counting its NUL terminator.
    public init(maxMessageSize: Int = VarlinkFrameDecoder.defaultMaxMessageSize) {
        decoder = VarlinkFrameDecoder(maxMessageSize: maxMessageSize)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receive(unwrapInboundIn(data), context: context)
    }

    /// Cuts the messages of one read's `bytes`, as ``channelRead(context:data:)`` does, for a handler that has them
    /// unwrapped already.
    func receive(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard !failed, !ended else { return }
        var bytes = bytes
        if var earlier = pending.take() {
            // A message that began in an earlier read: its bytes first, without what was read off already.
            earlier.discardReadBytes()
            earlier.writeBuffer(&bytes)
            pending = earlier
        } else {
            pending = bytes
        }
        cutMessages(context: context)
    }

    /// How many bytes of a message not finished yet the handler holds.
    var unfinishedBytes: Int { pending?.readableBytes ?? 0 }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { endOfStream(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        endOfStream(context: context)
        context.fireChannelInactive()
    }

    // MARK: - Private Functions

    private func endOfStream(context: ChannelHandlerContext) {
        guard !failed, !ended else { return }
        ended = true
        cutMessages(context: context)
    }

    /// Hands on every whole message in `pending`; once the stream has ended, checks that nothing but white space is
    /// left.
    private func cutMessages(context: ChannelHandlerContext) {
        guard !cutting else { return }
        cutting = true
        defer { cutting = false }
        do {
            while !failed, var bytes = pending.take() {
                let message = try decoder.nextMessage(in: &bytes)
                if bytes.readableBytes > 0 { pending = bytes }
                guard let message else { break }
                if let messageReceiver {
                    messageReceiver(message)
                } else {
                    context.fireChannelRead(wrapInboundOut(message))
                }
            }
            if ended, !failed, let rest = pending {
                pending = nil
                try decoder.checkEnd(of: rest)
            }
        } catch {
            failed = true
            pending = nil
            context.fireErrorCaught(error)
        }
    }
}
