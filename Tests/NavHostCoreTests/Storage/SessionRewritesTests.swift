import Synchronization
import Testing

@testable import NavHostStorage

/// The retry of a session's write after a failure, on its own: its rounds, counted with pauses that end at once.
@Suite("SessionRewrites: the retry's rounds")
struct SessionRewritesTests {
    /// What a retry did: the pauses it waited out, the rewrites it made, and whether the file may still hold a record
    /// whose write failed (a rewrite clears it).
    final class RetryLog: Sendable {
        private struct Counts {
            var pauses = 0
            var rewrites = 0
            var unwritten = true
        }

        private let counts = Mutex(Counts())

        var pauses: Int { counts.withLock { $0.pauses } }
        var rewrites: Int { counts.withLock { $0.rewrites } }
        var unwritten: Bool { counts.withLock { $0.unwritten } }

        func paused() { counts.withLock { $0.pauses += 1 } }

        func rewrote() {
            counts.withLock { counts in
                counts.rewrites += 1
                counts.unwritten = false
            }
        }
    }

    static let pauses = SessionRewrites.Pauses(first: .milliseconds(50), longest: .seconds(5))

    @Test("A retry ends as soon as its rewrite succeeded, without waiting out another pause")
    func endsRightAfterASuccess() async throws {
        let log = RetryLog()
        let rewrites = SessionRewrites(pauses: Self.pauses) { _ in log.paused() }
        rewrites.register("main") {
            log.rewrote()
            return .saved
        }
        let retry = try #require(rewrites.start("main") { log.unwritten })
        await retry.value
        #expect(log.rewrites == 1)
        // Before, it waited out one more pause (up to 5 s), and a failure meanwhile found it under way: its own retry
        // came after that pause, not after the first.
        #expect(log.pauses == 1, "one pause, before the rewrite")
        #expect(!rewrites.isRetrying("main"))
    }
}
