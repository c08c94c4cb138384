import Testing

@testable import NavHostCore

@Suite("Session context: the random numbers and the clock a recording holds and a replay hands back")
struct SessionContextTests {
    @Test("A replaying context hands out its script in order, then the system's numbers; a live one keeps what it drew")
    func randomNumbers() {
        let replaying = SessionContext(replaying: [7, 8])
        #expect(
            SessionContext.$bound.withValue(replaying) { [SessionRandomSource().next(), replaying.nextRandom()] } == [
                7, 8,
            ]
        )
        #expect(replaying.unusedScript == 0)
        _ = replaying.nextRandom()
        #expect(replaying.takeDrawn().isEmpty, "a replay keeps nothing")

        let live = SessionContext()
        let drawn = SessionContext.$bound.withValue(live) { (0..<3).map { _ in SessionRandomSource().next() } }
        #expect(live.takeDrawn() == drawn)
        #expect(live.takeDrawn().isEmpty)
        _ = SessionRandomSource().next()
        #expect(live.takeDrawn().isEmpty, "outside any session the system's generator serves, and nothing is kept")
    }

    @Test("A replaying session's clock is virtual: a sleep moves its time on by as much, and ends without waiting it")
    func virtualClock() async throws {
        let context = SessionContext(replaying: [])
        let clock = SessionClock()
        try await SessionContext.$bound.withValue(context) {
            let start = clock.now
            try await clock.sleep(for: .seconds(3600))
            try await clock.sleep(until: start.advanced(by: .seconds(10)), tolerance: nil)
            #expect(start.duration(to: clock.now) == .seconds(3600), "an earlier deadline does not move time back")
        }
    }
}
