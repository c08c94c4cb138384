import Dispatch
import Glibc
import Synchronization

/// Hands the sessions ``SessionPersistence`` must write to its writer while the writer polls for them, so that a
/// save queued soon after a write needs no thread woken.
///
/// Without it, each save that finds its session's writer idle queues a block on the writer's queue, and a thread of
/// the pool must wake up to run it: on a virtual machine whose idle vCPUs halt, that wake-up costs tens of
/// microseconds, paid by every state-changing call of a client that waits for each reply before its next call. With a
/// window, the writer that ends a write looks for the next session to write for that long (``nextSession()``), and a
/// save queued meanwhile is handed to it (``handOff(_:)``) rather than queued as a block. The window is the one the
/// event loop polls for after a read (navhostd's `--busy-poll`): both keep a CPU busy a little longer to spare a
/// wake-up, and neither polls on a machine, or in a process, that may use only one CPU.
///
/// The writer never holds up what is queued behind it: a block queued on the writer's queue (another session's
/// writer started while none polled, or ``SessionPersistence/waitForQueuedWrites()``) ends the polling at once, and
/// nothing is handed over from then on; the sessions handed over before it are written first, as blocks queued
/// before it would have been. Nor does the writer poll after a write that answered no caller (a background save): no
/// client waits to call again then.
package final class SessionHandOff: Sendable {
    private struct State {
        /// Whether a writer polls, or writes a session handed to it: a session queued now is handed to it.
        var isPolling = false
        /// The sessions handed to the writer and not taken yet, in the order they came.
        var sessions: [String] = []
        /// Blocks queued on the writer's queue that have not started yet (``blockQueued()``).
        var queuedBlocks = 0
        /// How many sessions were handed over so far.
        var handedOver = 0
    }

    private let state = Mutex(State())
    /// Counts hand-offs and queued blocks: what the polling writer watches between looks under the lock.
    private let news = Atomic<UInt64>(0)
    /// How long the writer polls after a write, in nanoseconds; 0 for never.
    private let windowNanoseconds: Atomic<Int64>

    /// Creates a hand-off whose writer polls for `window` after each write; `nil` for never.
    package init(window: Duration? = nil) {
        windowNanoseconds = Atomic(Self.nanoseconds(window))
    }

    /// How long the writer polls for the next session after a write; `nil` when it does not. Changed at any time: a
    /// writer polling already counts the new window from when it began, and stops at once when it is `nil`.
    package var window: Duration? {
        get {
            let nanoseconds = windowNanoseconds.load(ordering: .relaxed)
            return nanoseconds > 0 ? .nanoseconds(nanoseconds) : nil
        }
        set { windowNanoseconds.store(Self.nanoseconds(newValue), ordering: .relaxed) }
    }

    private static func nanoseconds(_ window: Duration?) -> Int64 {
        guard let window, window > .zero else { return 0 }
        let (seconds, attoseconds) = window.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    // MARK: Queueing

    /// Hands `session` to the writer when one polls and no block waits behind it; `false` otherwise. Then the caller
    /// must queue a block on the writer's queue to write it, which counts as queued from now on: the block calls
    /// ``blockStarted()`` first. Nothing is handed over while a block waits: sessions handed over after it would be
    /// written before it, and under a steady load of saves it would wait as long as the load lasts.
    package func handOff(_ session: String) -> Bool {
        let handed = state.withLock { state in
            guard state.isPolling, state.queuedBlocks == 0 else {
                state.queuedBlocks += 1
                return false
            }
            state.sessions.append(session)
            state.handedOver += 1
            return true
        }
        news.add(1, ordering: .releasing)
        return handed
    }

    /// Counts a block about to be queued on the writer's queue: a polling writer stops, so that the block runs next.
    /// The block calls ``blockStarted()`` first.
    package func blockQueued() {
        state.withLock { $0.queuedBlocks += 1 }
        news.add(1, ordering: .releasing)
    }

    /// Counts a block queued by ``handOff(_:)`` or after ``blockQueued()`` as started.
    package func blockStarted() {
        state.withLock { $0.queuedBlocks -= 1 }
    }

    // MARK: Polling

    /// Whether a writer polls, or writes a session handed to it.
    package var isPolling: Bool { state.withLock { $0.isPolling } }

    /// How many sessions ``handOff(_:)`` handed to the writer so far.
    package var handedOver: Int { state.withLock { $0.handedOver } }

    /// The next session to write, for the writer that has just ended a write: one handed to it while it wrote (a
    /// session handed over before; the first write of a block is done while nothing polls, and a save queued during
    /// it queues a block), or, when `polling`, one handed over within the window after; `nil` when none came, or a
    /// block waits behind the writer, and then it polls no more.
    ///
    /// - Parameter polling: Whether to poll for the window when no session waits: `false` after a write that answered
    ///   no caller, whose client is not about to call again.
    package func nextSession(polling: Bool = true) -> String? {
        var seen = news.load(ordering: .acquiring)
        let window = polling ? windowNanoseconds.load(ordering: .relaxed) : 0
        switch state.withLock({ Self.take(from: &$0, stopping: window == 0) }) {
        case .session(let session): return session
        case .stop: return nil
        case .poll: break
        }
        let start = DispatchTime.now().uptimeNanoseconds
        while true {
            // Yields the CPU to any thread the scheduler queued on it (a client woken by the last reply, when the
            // kernel put it there), and looks again at once when none waits.
            sched_yield()
            let currentWindow = UInt64(windowNanoseconds.load(ordering: .relaxed))
            let late = DispatchTime.now().uptimeNanoseconds - start >= currentWindow
            let now = news.load(ordering: .acquiring)
            guard now != seen || late else { continue }
            seen = now
            switch state.withLock({ Self.take(from: &$0, stopping: late) }) {
            case .session(let session): return session
            case .stop: return nil
            case .poll: continue
            }
        }
    }

    private enum Look {
        case session(String)
        case stop
        case poll
    }

    /// Takes the first session handed over; otherwise stops the polling when `stopping` or a block waits, and polls
    /// on when not.
    private static func take(from state: inout State, stopping: Bool) -> Look {
        if !state.sessions.isEmpty {
            // Still polling while it writes: a session queued meanwhile is handed over too, not queued as a block.
            state.isPolling = true
            return .session(state.sessions.removeFirst())
        }
        guard !stopping, state.queuedBlocks == 0 else {
            state.isPolling = false
            return .stop
        }
        state.isPolling = true
        return .poll
    }
}
