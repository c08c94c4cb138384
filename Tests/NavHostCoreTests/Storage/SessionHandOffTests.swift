import Dispatch
import NavHostStorage
import Testing

// Serialized: each test's writer polls a CPU until the test stops it, and a 2-core machine has two.
@Suite("The writer polls for the next session after a write", .serialized, .timeLimit(.minutes(1)))
struct SessionHandOffTests {
    @Test("Without a window no writer polls: a session to write needs a block of its own")
    func noWindowNoPolling() {
        let handOff = SessionHandOff()
        #expect(handOff.nextSession() == nil)
        Self.expectNoWriterPolls(handOff)
        #expect(handOff.handedOver == 0)
    }

    @Test("A session queued while the writer polls is handed to it, and the writer polls on while it writes it")
    func handedWhilePolling() async {
        let (handOff, next) = await Self.startPollingWriter()
        #expect(handOff.handOff("main"))
        #expect(await next.value == "main")
        #expect(handOff.isPolling, "a session queued during its write is handed over too")
        #expect(handOff.handOff("other"))
        #expect(handOff.nextSession() == "other")
        #expect(handOff.handedOver == 2)
        handOff.window = nil
        #expect(handOff.nextSession() == nil)
        Self.expectNoWriterPolls(handOff)
    }

    @Test("A block queued behind the polling writer ends the polling at once, and none starts while one waits")
    func blockEndsPolling() async {
        let (handOff, next) = await Self.startPollingWriter()
        handOff.blockQueued()
        #expect(await next.value == nil)
        #expect(!handOff.isPolling)
        #expect(handOff.nextSession() == nil, "a block waits: the writer leaves for it")
        handOff.blockStarted()
    }

    @Test("Sessions handed over before a block was queued are written before it runs, and none is handed over after")
    func handedBeforeBlock() async {
        let (handOff, next) = await Self.startPollingWriter()
        #expect(handOff.handOff("first"))
        #expect(handOff.handOff("second"))
        handOff.blockQueued()
        let first = await next.value
        #expect(first == "first")
        // Handed over now, it would be written before the block: under a steady load of saves, the block would wait
        // as long as the load lasts.
        #expect(!handOff.handOff("late"), "a session queued after the block is queued behind it")
        #expect(handOff.nextSession() == "second")
        #expect(handOff.nextSession() == nil)
        #expect(!handOff.isPolling)
        handOff.blockStarted()
        handOff.blockStarted()
    }

    @Test("After a write that answered no caller the writer takes what was handed over, and does not poll")
    func noPollingWithoutCallers() async {
        let (handOff, next) = await Self.startPollingWriter()
        #expect(handOff.handOff("main"))
        #expect(await next.value == "main")
        #expect(handOff.handOff("other"))
        #expect(handOff.nextSession(polling: false) == "other", "what was handed over is written all the same")
        #expect(handOff.nextSession(polling: false) == nil, "returns at once, not after 600 s")
        Self.expectNoWriterPolls(handOff)
    }

    @Test("The polling ends after the window, and a session queued then needs a block")
    func windowEnds() {
        let handOff = SessionHandOff(window: .milliseconds(5))
        #expect(handOff.nextSession() == nil)
        Self.expectNoWriterPolls(handOff)
    }

    @Test("Taking the window away stops a writer that polls")
    func windowTakenAway() async {
        let (handOff, next) = await Self.startPollingWriter()
        handOff.window = nil
        #expect(await next.value == nil)
        #expect(!handOff.isPolling)
    }

    // MARK: Helpers

    /// Checks that no writer polls: a session queued now needs a block of its own (counted as queued, then as
    /// started, as the block would).
    private static func expectNoWriterPolls(
        _ handOff: SessionHandOff,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!handOff.isPolling, sourceLocation: sourceLocation)
        #expect(!handOff.handOff("main"), "a session queued now needs a block", sourceLocation: sourceLocation)
        handOff.blockStarted()
    }

    /// A hand-off whose writer polls for 10 minutes, and that writer's ``SessionHandOff/nextSession(polling:)`` under
    /// way: returns once it polls.
    private static func startPollingWriter() async -> (SessionHandOff, Task<String?, Never>) {
        let handOff = SessionHandOff(window: .seconds(600))
        let next = Task { await nextSession(of: handOff) }
        await waitUntilPolling(handOff)
        return (handOff, next)
    }

    /// The writer's side, on a thread of its own as on the writer's queue: a serial queue of its own gets one
    /// whatever else runs. On the global queue, whose threads are as many as the CPUs, writers polling in tests run
    /// side by side took every thread, and the tasks that would end their polling never ran (Swift's global executor
    /// runs on the same threads on Linux).
    private static func nextSession(of handOff: SessionHandOff) async -> String? {
        await withCheckedContinuation { done in
            DispatchQueue(label: "navhost.test.writer").async { done.resume(returning: handOff.nextSession()) }
        }
    }

    /// Returns once the writer polls; the suite's time limit ends a test whose writer never does.
    private static func waitUntilPolling(_ handOff: SessionHandOff) async {
        while !handOff.isPolling { try? await Task.sleep(for: .milliseconds(1)) }
    }
}
