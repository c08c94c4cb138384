import Testing

@testable import NavHostStorage

@Suite("Calls that take turns")
@MainActor
struct TurnsTests {
    /// What the calls of one test did, in order.
    @MainActor
    private final class Log {
        var arrived: [Int] = []
        var entered: [Int] = []
        var inside = 0
        var mostInside = 0
    }

    @Test("Each call runs alone, in the order the calls came, and a call that throws hands the turn on")
    func firstComeFirstServed() async throws {
        let turns = Turns()
        let log = Log()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let calls = (1...6).map { number in
            Task { @MainActor in
                log.arrived.append(number)
                try await turns.take { () async throws -> Void in
                    log.entered.append(number)
                    log.inside += 1
                    log.mostInside = max(log.mostInside, log.inside)
                    defer { log.inside -= 1 }
                    // The first call holds the turn until every other has arrived and waits.
                    if number == log.arrived.first {
                        for await _ in gate { break }
                    } else {
                        await Task.yield()
                    }
                    if number.isMultiple(of: 3) { throw CancellationError() }
                }
            }
        }
        while log.arrived.count < 6 { await Task.yield() }
        #expect(turns.isTaken)
        open.yield()
        var thrown = 0
        for call in calls where (try? await call.value) == nil { thrown += 1 }
        #expect(thrown == 2)
        #expect(log.entered == log.arrived)
        #expect(log.mostInside == 1)
        #expect(!turns.isTaken)
    }
}
