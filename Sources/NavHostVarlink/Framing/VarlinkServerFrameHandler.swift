internal import NIOCore

/// The server's one handler in front of each connection: the send timeout, the partial-message timeout and the NUL
/// framing, in the order the three stand in when each is a handler of its own, in one pipeline step. It also tells the
/// server's ``UnfinishedMessageBudget`` what the framing holds of a message not finished yet.
///
/// It does what ``VarlinkSendTimeoutHandler``, then ``VarlinkPartialMessageTimeoutHandler``, then
/// ``VarlinkFrameHandler`` do in a pipeline, by keeping one of each out of the pipeline and calling it with its own
/// context: what they fire (a message cut, a timeout's error, a close) starts here and reaches the connection as it
/// did from them. Each event then crosses one handler instead of three: every read, every end of a read and every
/// writability change passed the other two only to be handed on (NIO's contexts call each handler in turn, whether
/// or not it cares about the event), about 600 instructions per steady `Send` (docs/architecture.md, session 46).
///
/// The messages themselves skip the pipeline once the connection stands behind this handler: they are handed to it
/// directly (``deliverMessages(to:)``), at the moment they would have been fired.
final class VarlinkServerFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let sendTimeout: VarlinkSendTimeoutHandler
    private let partialMessageTimeout: VarlinkPartialMessageTimeoutHandler
    private let framing: VarlinkFrameHandler
    private let unfinishedBudget: UnfinishedMessageBudget?
    private let busyPoller: BusyPoller?
    /// What the budget was last told this connection holds.
    private var unfinishedBytesRecorded = 0

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - sendTimeout: How long the channel may stay unwritable before the connection is closed.
    ///   - onSendTimeout: Called with the send timeout's error just before the channel is closed.
    ///   - partialMessageTimeout: How long a message may stay unfinished while the channel waits for input.
    ///   - maxMessageSize: The largest message accepted, in bytes, not counting its NUL terminator.
    ///   - unfinishedBudget: The budget of unfinished messages the server's connections share; `nil` for none.
    ///   - busyPoller: What keeps the loop polling for a while after each read; `nil` for none.
    init(
        sendTimeout: TimeAmount,
        onSendTimeout: @escaping @Sendable (VarlinkProtocolError) -> Void,
        partialMessageTimeout: TimeAmount,
        maxMessageSize: Int,
        unfinishedBudget: UnfinishedMessageBudget?,
        busyPoller: BusyPoller? = nil
    ) {
        self.sendTimeout = VarlinkSendTimeoutHandler(timeout: sendTimeout, onTimeout: onSendTimeout)
        self.partialMessageTimeout = VarlinkPartialMessageTimeoutHandler(timeout: partialMessageTimeout)
        self.framing = VarlinkFrameHandler(maxMessageSize: maxMessageSize)
        self.unfinishedBudget = unfinishedBudget
        self.busyPoller = busyPoller
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        busyPoller?.noteRead()
        partialMessageTimeout.noteRead(bytes, context: context)
        framing.receive(bytes, context: context)
        recordUnfinishedBytes(context: context)
    }

    /// Hands each message cut to `connection`, the handler right behind this one, by a direct call instead of down
    /// the pipeline, which wrapped it in `NIOAny`, passed it through NIO's contexts and unwrapped it again (about
    /// 400 instructions a message). Everything else (errors, the end of input, the end of a read) still goes down
    /// the pipeline, in the same order.
    func deliverMessages(to connection: Connection) {
        framing.messageReceiver = { connection.frameReceived($0) }
    }

    /// Sends the messages down the pipeline again: the connection is leaving it. It lets go of the connection, which
    /// ``deliverMessages(to:)`` held.
    func stopDeliveringMessages() {
        framing.messageReceiver = nil
    }

    func read(context: ChannelHandlerContext) {
        partialMessageTimeout.noteReadRequested()
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        sendTimeout.noteWritabilityChanged(context: context)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        framing.userInboundEventTriggered(context: context, event: event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        sendTimeout.cancelTimer()
        partialMessageTimeout.cancelTimer()
        framing.channelInactive(context: context)
        unfinishedBudget?.release(ObjectIdentifier(self))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sendTimeout.cancelTimer()
        partialMessageTimeout.cancelTimer()
        unfinishedBudget?.release(ObjectIdentifier(self))
    }

    // MARK: - Private Functions

    /// Tells the budget what the framing holds of an unfinished message, when that changed: a read that ends on a
    /// message's terminator, with nothing held before it, costs nothing more.
    private func recordUnfinishedBytes(context: ChannelHandlerContext) {
        guard let unfinishedBudget else { return }
        let held = framing.unfinishedBytes
        guard held != unfinishedBytesRecorded else { return }
        unfinishedBytesRecorded = held
        unfinishedBudget.record(held, heldBy: ObjectIdentifier(self), on: context.channel)
    }
}
