import NIOCore
import NIOEmbedded
import Testing

@testable import NavHostVarlink

/// The budget all of a server's connections share for the messages they hold unfinished (`UnfinishedMessageBudget`),
/// through the server's frame handler on embedded channels, each with a recorder behind it where the connection
/// stands. The embedded channels share one embedded event loop, as a server's connections share navhostd's one loop.
@Suite("The budget of unfinished messages: the connections holding the most are closed once all hold too much")
struct UnfinishedMessageBudgetTests {
    typealias EventLog = ServerFrameHandlerTests.EventLog

    let loop = EmbeddedEventLoop()
    /// 10 bytes for all connections together; each message may have 8.
    let budget = UnfinishedMessageBudget(limit: 10)

    /// A connected channel on the shared loop, with the server's frame handler reporting to the budget.
    func connection() throws -> (channel: EmbeddedChannel, log: EventLog) {
        let log = EventLog()
        let handler = VarlinkServerFrameHandler(
            sendTimeout: .seconds(30),
            onSendTimeout: { _ in },
            partialMessageTimeout: .seconds(10),
            maxMessageSize: 8,
            unfinishedBudget: budget
        )
        let channel = EmbeddedChannel(handlers: [handler, ServerFrameHandlerTests.Recorder(log: log)], loop: loop)
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/navhost-test")).wait()
        return (channel, log)
    }

    @Test("Within the limit nobody is closed; past it the largest holder is, and the others finish their messages")
    func largestHolderClosed() throws {
        let (first, firstLog) = try connection()
        let (second, secondLog) = try connection()
        let (third, thirdLog) = try connection()
        try first.writeInbound(ByteBuffer(string: "aaa"))
        try second.writeInbound(ByteBuffer(string: "bbbbb"))
        try third.writeInbound(ByteBuffer(string: "cc"))
        loop.run()
        #expect(budget.total == 10, "at the limit, not past it")
        #expect(firstLog.events.isEmpty && secondLog.events.isEmpty && thirdLog.events.isEmpty)

        // One byte more, from the first connection: the second, which holds the most, is closed, not the one that read,
        // and at once, in the read that took the total past the limit (on the same loop).
        try first.writeInbound(ByteBuffer(string: "a"))
        #expect(secondLog.events == ["error unfinishedMessagesOverLimit"])
        #expect(budget.total == 6)
        // Its bytes are not counted again while it closes.
        try second.writeInbound(ByteBuffer(string: "b"))
        #expect(budget.total == 6)

        try first.writeInbound(ByteBuffer(string: "\0"))
        try third.writeInbound(ByteBuffer(string: "c\0"))
        #expect(firstLog.events == ["message aaaa"])
        #expect(thirdLog.events == ["message ccc"])
        #expect(budget.total == 0)
        for channel in [first, second, third] { _ = try? channel.finish() }
    }

    @Test("Under a lowered limit, the next change closes as many as it takes, largest first")
    func severalClosedLargestFirst() throws {
        let budget = UnfinishedMessageBudget(limit: 10)
        let (first, second, third) = (EmbeddedChannel(), EmbeddedChannel(), EmbeddedChannel())
        let ids = [first, second, third].map(ObjectIdentifier.init)
        #expect(budget.record(4, heldBy: ids[0], on: first).isEmpty)
        #expect(budget.record(3, heldBy: ids[1], on: second).isEmpty)
        // A smaller limit counts from the next change: then 8 bytes against 2.
        budget.limit = 2
        #expect(budget.total == 7)
        #expect(budget.record(1, heldBy: ids[2], on: third) == [ids[0], ids[1]])
        #expect(budget.total == 1)
        // A closed connection's bytes count again only once it has said it is gone (and is a new one).
        #expect(budget.record(9, heldBy: ids[0], on: first).isEmpty)
        budget.release(ids[0])
        #expect(budget.total == 1)
    }

    @Test("A connection gives its bytes back when its message ends and when it closes")
    func bytesGivenBack() throws {
        let (first, _) = try connection()
        let (second, _) = try connection()
        try first.writeInbound(ByteBuffer(string: "x\0abc"))
        #expect(budget.total == 3)
        try first.writeInbound(ByteBuffer(string: "d\0"))
        #expect(budget.total == 0)
        try second.writeInbound(ByteBuffer(string: "abcdef"))
        #expect(budget.total == 6)
        _ = try? second.finish()
        #expect(budget.total == 0)
        _ = try? first.finish()
    }
}
