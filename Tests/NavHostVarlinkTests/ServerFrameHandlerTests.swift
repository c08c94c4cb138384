import NIOCore
import NIOEmbedded
import Testing

@testable import NavHostVarlink

/// The server's one handler in front of each connection (`VarlinkServerFrameHandler`: the send timeout, the
/// partial-message timeout and the framing in one pipeline step), driven through an `EmbeddedChannel` whose clock the
/// tests move. What reaches the handler behind it (where the connection stands) is written down in order.
///
/// The messages go down the pipeline here: the direct hand-over to a connection (`deliverMessages(to:)`) needs a real
/// connection, and the server's tests cover it.
@Suite("The server's frame handler: framing, partial-message timeout and send timeout in one step")
struct ServerFrameHandlerTests {
    /// What reached the handler behind the frame handler, and the send timeout's report, in the order they came.
    final class EventLog: @unchecked Sendable {
        // Written only on the embedded event loop, which runs on the test's own thread.
        var events: [String] = []
    }

    /// Stands where the connection stands and writes down each message, error, writability change and the end of
    /// the channel; it passes nothing on, so the embedded channel keeps no error to throw.
    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        let log: EventLog

        init(log: EventLog) {
            self.log = log
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            log.events.append("message \(String(buffer: unwrapInboundIn(data)))")
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            log.events.append("error \((error as? VarlinkProtocolError)?.code.description ?? "\(error)")")
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            log.events.append(context.channel.isWritable ? "writable" : "unwritable")
        }

        func channelInactive(context: ChannelHandlerContext) {
            log.events.append("inactive")
        }
    }

    static let sendTimeout = TimeAmount.seconds(5)
    static let partialMessageTimeout = TimeAmount.seconds(2)

    let log: EventLog
    let channel: EmbeddedChannel

    /// A connected channel with the frame handler (messages up to 8 bytes) and the recorder behind it.
    init() throws {
        let log = EventLog()
        let handler = VarlinkServerFrameHandler(
            sendTimeout: Self.sendTimeout,
            onSendTimeout: { log.events.append("send timeout reported: \($0.code)") },
            partialMessageTimeout: Self.partialMessageTimeout,
            maxMessageSize: 8,
            unfinishedBudget: nil
        )
        self.log = log
        channel = EmbeddedChannel(handlers: [handler, Recorder(log: log)])
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/navhost-test")).wait()
    }

    /// Moves the channel's clock on by `amount`, running what falls due.
    func advance(by amount: TimeAmount) {
        channel.embeddedEventLoop.advanceTime(by: amount)
    }

    /// Makes the channel unwritable or writable and tells the pipeline, as NIO does when the bytes waiting to be
    /// written cross the high or the low water mark (an embedded channel has no water marks of its own).
    func setWritable(_ writable: Bool) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    @Test("Several messages in one read reach the connection one by one, in order")
    func messagesOfOneReadInOrder() throws {
        try channel.writeInbound(ByteBuffer(string: "a\0bb\0\0ccc\0"))
        #expect(log.events == ["message a", "message bb", "message ", "message ccc"])
        #expect(try channel.finish().isClean)
    }

    @Test("A message split across reads reaches the connection once, when its terminator arrives")
    func messageSplitAcrossReads() throws {
        try channel.writeInbound(ByteBuffer(string: "a\0{\"b"))
        #expect(log.events == ["message a"])
        try channel.writeInbound(ByteBuffer(string: "\":"))
        #expect(log.events == ["message a"])
        try channel.writeInbound(ByteBuffer(string: "1}\0c\0"))
        #expect(log.events == ["message a", "message {\"b\":1}", "message c"])
        #expect(try channel.finish().isClean)
    }

    @Test("A read that ends inside a message starts the partial-message timer; it fires after the messages before it")
    func partialMessageTimerFires() throws {
        try channel.writeInbound(ByteBuffer(string: "a\0{"))
        channel.read()
        advance(by: Self.partialMessageTimeout - .milliseconds(1))
        #expect(log.events == ["message a"])
        advance(by: .milliseconds(1))
        #expect(log.events == ["message a", "error partialMessageTimeout"])
        _ = try? channel.finish()
    }

    @Test("The message's end cancels the partial-message timer")
    func partialMessageTimerCancelled() throws {
        try channel.writeInbound(ByteBuffer(string: "{"))
        channel.read()
        advance(by: .seconds(1))
        try channel.writeInbound(ByteBuffer(string: "}\0"))
        channel.read()
        advance(by: Self.partialMessageTimeout * 5)
        #expect(log.events == ["message {}"])
        #expect(try channel.finish().isClean)
    }

    @Test("While no input is asked for (back pressure), the partial-message timer starts over instead of firing")
    func partialMessageTimerWaitsForReadRequest() throws {
        try channel.writeInbound(ByteBuffer(string: "{"))
        advance(by: Self.partialMessageTimeout * 3)
        #expect(log.events.isEmpty)
        channel.read()
        advance(by: Self.partialMessageTimeout)
        #expect(log.events == ["error partialMessageTimeout"])
        _ = try? channel.finish()
    }

    @Test("A message over the limit is refused before its terminator, after the messages before it; nothing follows")
    func oversizedMessageRefused() throws {
        try channel.writeInbound(ByteBuffer(string: "12345678\0" + "123456789"))
        #expect(log.events == ["message 12345678", "error messageTooLarge"])
        try channel.writeInbound(ByteBuffer(string: "\0ok\0"))
        #expect(log.events == ["message 12345678", "error messageTooLarge"])
        _ = try? channel.finish()
    }

    @Test("The send timeout does not fire while the channel stays writable, or becomes writable again in time")
    func sendTimeoutQuietWhileWritable() throws {
        advance(by: Self.sendTimeout * 3)
        #expect(log.events.isEmpty)

        setWritable(false)
        advance(by: Self.sendTimeout - .milliseconds(1))
        setWritable(true)
        advance(by: Self.sendTimeout * 3)
        #expect(log.events == ["unwritable", "writable"])
        #expect(channel.isActive)

        // Writable again when the timer falls due, though the change has not been told yet: nothing is closed.
        setWritable(false)
        channel.isWritable = true
        advance(by: Self.sendTimeout)
        #expect(log.events == ["unwritable", "writable", "unwritable"])
        #expect(channel.isActive)
        #expect(try channel.finish().isClean)
    }

    @Test("The send timeout fires when the channel stays unwritable: reported, sent down the pipeline, then closed")
    func sendTimeoutFiresWhileUnwritable() throws {
        setWritable(false)
        advance(by: Self.sendTimeout - .milliseconds(1))
        #expect(log.events == ["unwritable"])
        #expect(channel.isActive)
        // Another change that leaves it unwritable does not start the timer again.
        channel.pipeline.fireChannelWritabilityChanged()
        advance(by: .milliseconds(1))
        #expect(
            log.events == [
                "unwritable", "unwritable", "send timeout reported: sendTimeout", "error sendTimeout", "inactive",
            ]
        )
        #expect(!channel.isActive)
    }
}
