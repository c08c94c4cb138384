internal import Synchronization

/// A clock whose time moves only when a test advances it: the clock a ``FeatureTestHost`` lends every feature.
///
/// A use case that sleeps on it (`try await clock.sleep(for: .seconds(5))`) stays asleep until the test calls
/// ``advance(by:)``; an intent time limit measured on it runs out only when the test says so.
///
/// ```swift
/// let clock = ManualClock()
/// let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
/// await clock.advance(by: .seconds(5))   // the sleeper wakes
/// ```
public final class ManualClock: Clock, Sendable {
    // MARK: Public Types

    /// A point in the clock's time: how far it is from the moment the clock was made.
    public struct Instant: InstantProtocol, Sendable, Hashable {
        /// The time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        public func duration(to other: Instant) -> Duration { other.offset - offset }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    // MARK: Private Types

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelled: Set<UInt64> = []
        var nextSleeper: UInt64 = 0
    }

    // MARK: Private Properties

    private let state = Mutex(State())

    // MARK: Initialization

    /// Creates a clock at offset zero.
    public init() {}

    // MARK: Public Properties

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// How many sleepers are waiting for the clock to move.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    // MARK: Public Functions

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            defer { state.nextSleeper += 1 }
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case wait, wake, cancel }
                let start: Start = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait
                }
                switch start {
                case .wait: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // A sleeper cancelled after it woke leaves its mark behind; nothing will read it again.
        _ = state.withLock { $0.cancelled.remove(id) }
    }

    /// Moves the clock forward by `duration`, waking each sleeper whose deadline it passes, earliest first, and
    /// giving the work each one resumes a chance to run before the clock moves on.
    public func advance(by duration: Duration) async {
        let target = state.withLock { $0.now }.advanced(by: duration)
        while let sleeper = nextSleeper(dueBy: target) {
            sleeper.continuation.resume()
            await Self.letResumedWorkRun()
        }
        await Self.letResumedWorkRun()
    }
}

// MARK: - Private Functions

extension ManualClock {
    /// Removes and returns the earliest sleeper due by `target`, moving the clock to its deadline; with none due, moves
    /// the clock to `target` in the same look. Looked for, then moved in a second step, a sleeper that registered
    /// between the two (a task running on another thread) saw the clock before the move, and the move never woke it:
    /// a test waiting for it (an intent's time-out) waited for ever, and held the whole suite (session 60).
    private func nextSleeper(dueBy target: Instant) -> Sleeper? {
        state.withLock { state in
            guard
                let (id, sleeper) = state.sleepers.filter({ $0.value.deadline <= target })
                    .min(by: { $0.value.deadline < $1.value.deadline })
            else {
                state.now = max(state.now, target)
                return nil
            }
            state.sleepers[id] = nil
            state.now = max(state.now, sleeper.deadline)
            return sleeper
        }
    }

    /// Yields often enough for a task resumed by the clock, and what it starts on the main actor, to run.
    private static func letResumedWorkRun() async {
        for _ in 0..<8 {
            await Task.detached(priority: .low) { await Task.yield() }.value
        }
    }
}
