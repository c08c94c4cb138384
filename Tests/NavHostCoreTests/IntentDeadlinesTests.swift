import NavHostTestSupport
import NavHostTesting
import Testing

@testable import NavHostCore

/// The intent time limit's shared timer, alone, on a test clock.
@MainActor
@Suite("Intent deadlines: one timer per screen")
struct IntentDeadlinesTests {
    /// Deadlines on a test clock, and the tickets whose `onTimeout` ran, in order.
    @MainActor
    final class Harness {
        let clock = TestClock<Duration>()
        let deadlines: any IntentDeadlines
        let timedOut: AsyncStream<Int>
        private let sink: AsyncStream<Int>.Continuation

        init(limit: Duration = .seconds(30)) {
            deadlines = makeIntentDeadlines(limit: limit, clock: clock)
            (timedOut, sink) = AsyncStream.makeStream(of: Int.self)
        }

        func start() -> Int {
            let ticket = Box()
            ticket.value = deadlines.start { [sink] in sink.yield(ticket.value) }
            return ticket.value
        }

        /// The next ticket that timed out.
        func nextTimedOut() async throws -> Int {
            let stream = timedOut
            return try await withTimeout(.seconds(10), "an intent to time out") {
                var iterator = stream.makeAsyncIterator()
                guard let ticket = await iterator.next() else { throw TimedOut(what: "a ticket") }
                return ticket
            }
        }

        final class Box {
            var value = -1
        }
    }

    @Test("An intent still pending at its deadline times out; one that finished does not")
    func pendingTimesOutFinishedDoesNot() async throws {
        let harness = Harness()
        let finished = harness.start()
        let pending = harness.start()
        harness.deadlines.finish(finished)
        await harness.clock.advance(by: .seconds(30))
        #expect(try await harness.nextTimedOut() == pending)
    }

    @Test("Each deadline runs from its own intent's start, in order")
    func deadlinesRunFromEachStart() async throws {
        let harness = Harness()
        let first = harness.start()
        await harness.clock.advance(by: .seconds(20))
        let second = harness.start()
        await harness.clock.advance(by: .seconds(10))
        #expect(try await harness.nextTimedOut() == first)
        await harness.clock.advance(by: .seconds(20))
        #expect(try await harness.nextTimedOut() == second)
    }

    @Test("After cancelAll nothing pending times out, and later intents still do")
    func cancelAllForgetsPending() async throws {
        let harness = Harness()
        _ = harness.start()
        harness.deadlines.cancelAll()
        let later = harness.start()
        await harness.clock.advance(by: .seconds(30))
        #expect(try await harness.nextTimedOut() == later)
    }

    @Test("Thousands of intents that finish in turn behind a slow one leave only it pending")
    func finishedIntentsBehindASlowOneAreDropped() async throws {
        let harness = Harness()
        let slow = harness.start()
        for _ in 0..<5000 { harness.deadlines.finish(harness.start()) }
        let last = harness.start()
        await harness.clock.advance(by: .seconds(30))
        #expect(try await harness.nextTimedOut() == slow)
        #expect(try await harness.nextTimedOut() == last)
    }
}
