internal import NIOCore

/// The server's one handler in front of each connection: the send timeout, the partial-message timeout and the NUL
/// framing, in the order the three stand in when each is a handler of its own, in one pipeline step.
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

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - sendTimeout: How long the channel may stay unwritable before the connection is closed.
    ///   - onSendTimeout: Called with the send timeout's error just before the channel is closed.
    ///   - partialMessageTimeout: How long a message may stay unfinished while the channel waits for input.
    ///   - maxMessageSize: The largest message accepted, in bytes, not counting its NUL terminator.
    init(
        sendTimeout: TimeAmount,
        onSendTimeout: @escaping @Sendable (VarlinkProtocolError) -> Void,
        partialMessageTimeout: TimeAmount,
        maxMessageSize: Int
    ) {
        self.sendTimeout = VarlinkSendTimeoutHandler(timeout: sendTimeout, onTimeout: onSendTimeout)
        self.partialMessageTimeout = VarlinkPartialMessageTimeoutHandler(timeout: partialMessageTimeout)
        self.framing = VarlinkFrameHandler(maxMessageSize: maxMessageSize)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        partialMessageTimeout.noteRead(bytes, context: context)
        framing.receive(bytes, context: context)
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
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sendTimeout.cancelTimer()
        partialMessageTimeout.cancelTimer()
    }
}
