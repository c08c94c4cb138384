import NavHostKit
import Synchronization

/// A task a screen runs for its ViewModel, as the screen keeps it: cancelled when the screen closes, even before
/// `Task.immediate` has returned it, and the race of the intent's caller waiting on it, told when the screen closes.
@MainActor
final class ScreenTask {
    /// The screen task whose work runs now (bound for the task and inherited by the tasks it starts); `nil` outside
    /// a screen's work.
    nonisolated static var current: ScreenTask? { ScreenTaskBinding.task }

    /// The context of the session whose screen runs the task: ``SessionContext/current`` in the task's work.
    nonisolated let context: SessionContext?

    /// Whether the task's intent was given up on: its caller was answered that it did not finish in time. The
    /// session drops the navigation such a task asks for (`NavigationSession.perform`), and its feature's store the
    /// writes (``IntentGuardedStore``).
    ///
    /// ``abandon()`` sets it with ``StoreWrites/isShut``, which says the same; both are kept because they are read
    /// differently: that one on any thread, under the lock that counts the writes under way, since a write's check and
    /// its count must be one step; this one on the main actor by every navigation of a screen's work, which it spares
    /// that lock.
    private(set) var isAbandoned = false
    /// Whether its screen was closed by another call before its intent had an outcome: its caller waits only for the
    /// store writes under way then (``countNoMoreStoreWrites()``). ``StoreWrites/countsNoMore`` says the same under
    /// the lock.
    private(set) var waitsOnlyForStoreWritesUnderWayAtClose = false
    /// The writes to a feature's store the task's work has under way, and whether more may begin: none once its
    /// intent was given up on. Read and changed on whatever thread the write starts and ends on.
    private nonisolated let storeWrites = Mutex(StoreWrites())
    /// The screen that runs the task. A reload rebuilds a screen under the same ID: the old ViewModel's work, which
    /// may go on although cancelled, is told from the new one's by this, not by the ID.
    private let screen: Backlink<Screen>
    /// The ID of ``screen``, kept when it is gone.
    let screenID: ScreenID
    /// The first navigation the session refused to the task's work: its intent's caller is answered with it rather
    /// than as done (`Screen.send`).
    var refusedNavigation: NavigationError?
    /// The race of the caller waiting on the task's intent, if one waits.
    var race: IntentRace?
    private var cancelled = false
    private var cancelTask: (() -> Void)?

    init(screen: Screen, context: SessionContext?) {
        self.screen = screen.backlink
        self.screenID = screen.id
        self.context = context
    }

    /// Whether the task is the work of a screen called `id` that has left the stack (or is gone): a screen a reload
    /// rebuilt under the same ID is another screen. (A screen's work may navigate for another screen, through a
    /// callback its coordinator wired: that is the other screen's navigation.)
    func isWorkOfClosedScreen(_ id: ScreenID) -> Bool {
        screenID == id && (screen.owner?.isClosed ?? true)
    }

    /// Gives the task's intent up: its caller is about to be answered that it did not finish. No store write of its
    /// work begins from now on; the caller waits for those under way (``storeWritesEnded()``).
    func abandon() {
        isAbandoned = true
        storeWrites.withLock { $0.isShut = true }
    }

    /// Has its caller wait only for the store writes its work has under way now: its screen was closed by another call
    /// before its intent had an outcome. The writes its work begins from now on go through, uncounted: the session's
    /// close cancelled that work, which may go on regardless, and its caller is not held for as long as it does.
    func countNoMoreStoreWrites() {
        waitsOnlyForStoreWritesUnderWayAtClose = true
        storeWrites.withLock { $0.countsNoMore = true }
    }

    /// Whether its caller has store writes to wait for after its screen closed (``countNoMoreStoreWrites()``).
    var hasStoreWritesToWaitForAfterClose: Bool {
        waitsOnlyForStoreWritesUnderWayAtClose && storeWrites.withLock { $0.underWay > 0 }
    }

    /// Ends its caller's wait for the store writes under way at its screen's close, now or when it begins: its time
    /// limit ran out. Does nothing for any other wait (a timed-out intent's, or one delivered again to a rebuilt
    /// screen, which wait for their writes to end, or for the daemon's stop,
    /// ``endWaitForStoreWritesAsTheDaemonStops()``).
    func endWaitForStoreWritesAfterClose() {
        guard waitsOnlyForStoreWritesUnderWayAtClose else { return }
        endWaitForStoreWrites()
    }

    /// Ends its caller's wait for the store writes of its work, now or when it begins, whatever it waits after (its
    /// intent timed out, its screen was closed by another call, or rebuilt): the daemon is stopping, and a write that
    /// does not end must not hold the stop. The writes are not refused for it; the process ends under them.
    func endWaitForStoreWritesAsTheDaemonStops() {
        endWaitForStoreWrites()
    }

    /// Returns its caller's wait for store writes now, and any it begins from now on at once.
    private func endWaitForStoreWrites() {
        let waiter = storeWrites.withLock { writes -> CheckedContinuation<Void, Never>? in
            writes.isWaitEnded = true
            defer { writes.waiter = nil }
            return writes.waiter
        }
        waiter?.resume()
    }

    /// Whether a store write of its work is under way now.
    var hasStoreWritesUnderWay: Bool { storeWrites.withLock { $0.underWay > 0 } }

    /// Notes a write to a feature's store that the task's work begins: ``StoreWriteStart/counted`` when its caller
    /// may wait for it to end (``endStoreWrite()`` must then follow), ``StoreWriteStart/refused``, and nothing noted,
    /// when its intent was given up on.
    nonisolated func beginStoreWrite() -> StoreWriteStart {
        storeWrites.withLock { writes in
            guard !writes.isShut else { return .refused }
            guard !writes.countsNoMore else { return .uncounted }
            writes.underWay += 1
            return .counted
        }
    }

    /// Notes that a write ``beginStoreWrite()`` counted has ended, done or failed.
    nonisolated func endStoreWrite() {
        let waiter = storeWrites.withLock { writes -> CheckedContinuation<Void, Never>? in
            writes.underWay -= 1
            guard writes.underWay == 0 else { return nil }
            defer { writes.waiter = nil }
            return writes.waiter
        }
        waiter?.resume()
    }

    /// Returns once no store write of the task's work is under way; after ``abandon()``, none begins again, and after
    /// ``countNoMoreStoreWrites()`` none is counted, and ``endWaitForStoreWritesAfterClose()`` returns it sooner;
    /// ``endWaitForStoreWritesAsTheDaemonStops()`` returns any wait sooner.
    func storeWritesEnded() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ended = storeWrites.withLock { writes in
                guard writes.underWay > 0, !writes.isWaitEnded else { return true }
                precondition(writes.waiter == nil, "one caller waits on an intent")
                writes.waiter = waiter
                return false
            }
            if ended { waiter.resume() }
        }
    }

    /// The task, once `Task.immediate` has returned it; a cancel asked for before is applied now.
    func setTask<Result>(_ task: Task<Result, Never>) {
        cancelTask = { task.cancel() }
        if cancelled { task.cancel() }
    }

    func cancel() {
        cancelled = true
        cancelTask?()
    }
}

/// The store writes of a screen task: how many are under way, whether more may begin, and who waits for them to end.
private struct StoreWrites {
    var underWay = 0
    /// Whether the task's intent was given up on: no write begins. ``ScreenTask/isAbandoned`` says the same on the
    /// main actor without the lock.
    var isShut = false
    /// Whether its screen was closed by another call before its intent had an outcome: the writes that begin from now
    /// on go through uncounted. ``ScreenTask/waitsOnlyForStoreWritesUnderWayAtClose`` says the same on the main actor.
    var countsNoMore = false
    /// Whether the caller's wait was ended: after such a close by the intent's time limit or the daemon's stop, after
    /// a time-out by the daemon's stop. It returns at once.
    var isWaitEnded = false
    var waiter: CheckedContinuation<Void, Never>?
}

/// How a write to a feature's store that a screen task's work begins is noted (``ScreenTask/beginStoreWrite()``).
enum StoreWriteStart {
    /// Counted as under way: its intent's caller may wait for it to end.
    case counted
    /// Let through without being counted: its screen was closed by another call, and its caller waits only for the
    /// writes under way then.
    case uncounted
    /// Refused: its intent was given up on.
    case refused
}

/// Where ``ScreenTask/current`` is bound: outside the main-actor class, so that ``SessionContext/current`` can read
/// it on any thread.
enum ScreenTaskBinding {
    @TaskLocal static var task: ScreenTask?
}
