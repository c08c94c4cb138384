import NavHostTesting
import Testing

@testable import NavHostCore

@MainActor
@Suite("One timer for all of a screen's intents")
struct IntentTimerTests {
    @Test("Only the intents still under way at their deadline expire, oldest first")
    func onlyLateIntentsExpire() async throws {
        let clock = ManualClock()
        let timer = IntentTimer(limit: .seconds(10), clock: clock)
        let (expired, expiring) = AsyncStream.makeStream(of: Int.self)
        timer.start(1) { expiring.yield(1) }
        await clock.advance(by: .seconds(4))
        timer.start(2) { expiring.yield(2) }
        timer.start(3) { expiring.yield(3) }
        timer.finish(2)
        #expect(timer.pendingCount == 2)

        var order = expired.makeAsyncIterator()
        await clock.advance(by: .seconds(6))
        #expect(await order.next() == 1, "the first intent's 10 s are up")
        await clock.advance(by: .seconds(4))
        #expect(await order.next() == 3, "the third's are too; the second finished in time")
        #expect(timer.pendingCount == 0)
    }

    @Test("Intents that finish in time leave nothing on the clock, however many there were")
    func finishedIntentsLeaveNothing() async throws {
        let clock = ManualClock()
        let timer = IntentTimer(limit: .seconds(30), clock: clock)
        for number in 0..<10_000 {
            timer.start(number) { Issue.record("intent \(number) finished in time") }
            timer.finish(number)
        }
        #expect(timer.pendingCount == 0)
        await clock.advance(by: .seconds(60))
    }
}
