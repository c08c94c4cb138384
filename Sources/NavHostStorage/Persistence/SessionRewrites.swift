import Synchronization

/// Writes a session's state again after a failed write, with a pause that doubles, until one of its writes succeeds:
/// a failed write may have reached the disk all the same, and left in the session's file a change its callers were
/// answered `StorageFailed` for, which a restart would read. Nothing else writes over it when the take-back's own
/// write fails too, or when the session's next save finds its stack already written.
///
/// The session's owner says how to write its current state (``register(_:rewrite:)``); ``SessionPersistence`` starts
/// the retry after each failed write whose record the file may hold (``start(_:while:)``). A retry runs in a task of
/// its own: no caller waits for it. It ends when a write of the session succeeds, when the rewrite says the session is
/// gone, and when the owner takes the session out (``remove(_:)``: it closed, or the daemon is stopping).
final class SessionRewrites: Sendable {
    /// Writes the session's current state, and says how the round went.
    typealias Rewrite = @Sendable () async -> SessionPersistence.RewriteRound

    /// The pauses before each attempt: the first, and the longest the doubling reaches.
    struct Pauses: Sendable {
        var first: Duration
        var longest: Duration
    }

    private struct Entry {
        var rewrite: Rewrite
        /// Which registration it is: a task ends its own entry's retry only.
        var number: UInt64
        var task: Task<Void, Never>?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var registrations: UInt64 = 0
    }

    private let state = Mutex(State())
    let pauses: Pauses
    /// How a retry waits out a pause: `Task.sleep`, or a test's double.
    private let sleep: @Sendable (Duration) async -> Void

    init(pauses: Pauses, sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }) {
        self.pauses = pauses
        self.sleep = sleep
    }

    /// Records how to write the current state of session `name`, in place of any earlier session of the name's,
    /// whose retry stops.
    func register(_ name: String, rewrite: @escaping Rewrite) {
        state.withLock { state in
            state.entries[name]?.task?.cancel()
            state.registrations += 1
            state.entries[name] = Entry(rewrite: rewrite, number: state.registrations, task: nil)
        }
    }

    /// Stops the retry of session `name`, and forgets how to write it.
    func remove(_ name: String) {
        state.withLock { state in
            state.entries.removeValue(forKey: name)?.task?.cancel()
        }
    }

    /// Whether a retry of session `name` is under way.
    func isRetrying(_ name: String) -> Bool {
        state.withLock { $0.entries[name]?.task != nil }
    }

    /// How to write the current state of session `name`, as registered.
    func rewrite(of name: String) -> Rewrite? {
        state.withLock { $0.entries[name]?.rewrite }
    }

    /// The task of the retry of session `name` under way, if one is: it ends when the retry does, even once
    /// ``remove(_:)`` forgot it.
    func runningRetry(of name: String) -> Task<Void, Never>? {
        state.withLock { $0.entries[name]?.task }
    }

    /// Starts retrying session `name`, unless a retry is under way or nobody registered it: a rewrite after each
    /// pause, as long as `unwritten` says the file may hold a record that was not written.
    ///
    /// - Parameter unwritten: Read under this object's lock when the retry ends, so that a failure recorded before
    ///   this call either finds the retry going on or starts a new one.
    /// - Returns: The retry's task, when this call started it.
    @discardableResult
    func start(_ name: String, while unwritten: @escaping @Sendable () -> Bool) -> Task<Void, Never>? {
        state.withLock { state in
            guard let entry = state.entries[name], entry.task == nil else { return nil }
            let number = entry.number
            let task = Task {
                await self.retry(name, number: number, rewrite: entry.rewrite, while: unwritten)
            }
            state.entries[name]?.task = task
            return task
        }
    }

    /// The retry's loop: pause, rewrite, double the pause; it ends once `unwritten` no longer holds (under the lock,
    /// checked right after each rewrite), the rewrite finds no session, or the task is cancelled. A round whose
    /// rewrite waits for a take-back keeps the pause.
    private func retry(_ name: String, number: UInt64, rewrite: Rewrite, while unwritten: () -> Bool) async {
        var pause = pauses.first
        rounds: while true {
            await sleep(pause)
            if Task.isCancelled { return }
            if unwritten() {
                switch await rewrite() {
                case .saved: pause = min(pause * 2, pauses.longest)
                case .waitingForTakeBack: continue rounds
                case .sessionGone: break rounds
                }
            }
            // At once after a rewrite that succeeded: a retry kept for one more pause (up to 5 s) made a failure in
            // that pause wait for it, instead of starting a retry of its own after the first pause.
            let ended = state.withLock { state in
                guard !unwritten() else { return false }
                if state.entries[name]?.number == number { state.entries[name]?.task = nil }
                return true
            }
            if ended { return }
        }
        state.withLock { state in
            if state.entries[name]?.number == number { state.entries[name]?.task = nil }
        }
    }
}
