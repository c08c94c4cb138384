/// Enforces one screen's intent time limit with a single sleeping task, however many intents it runs.
///
/// A timer task per intent would cost memory in proportion to the intent rate times the limit: a cancelled
/// `Task.sleep` keeps its task and its timer alive until the deadline it was given. Here each intent only joins a
/// queue; since every intent gets the same limit, deadlines come in the order intents start, so one task sleeping
/// until the oldest deadline serves them all. An intent that finishes leaves the queue; when the queue is empty the
/// task ends after its current sleep.
@MainActor
final class IntentTimer {
    private let timing: any IntentTiming

    /// A timer that gives each intent `limit`, measured on `clock`.
    init(limit: Duration, clock: any Clock<Duration>) {
        timing = Self.timing(limit: limit, clock: clock)
    }

    /// Opens the clock, so the timer can keep its instants.
    private static func timing<C: Clock<Duration>>(limit: Duration, clock: C) -> any IntentTiming {
        ClockTiming(limit: limit, clock: clock)
    }

    /// The limit each intent gets.
    var limit: Duration { timing.limit }

    /// Starts the clock for intent `number`; `expire` runs if it is still under way when its time is up.
    ///
    /// - Returns: The intent's deadline, for a delivery of the same intent to the screen a reload builds in this one's
    ///   place (``start(remainingOf:expire:)``).
    @discardableResult
    func start(_ number: Int, expire: @escaping @MainActor () -> Void) -> IntentDeadline {
        timing.start(number, expire: expire)
    }

    /// Starts a clock of its own for an intent delivered again after a reload: `expire` runs once what is left of
    /// `deadline` has passed, unless the returned task is cancelled first. An intent delivered again is rare, so it
    /// gets a task of its own rather than a place in the queue, whose deadlines all come one limit after their start.
    func start(remainingOf deadline: IntentDeadline, expire: @escaping @MainActor () -> Void) -> Task<Void, Never> {
        timing.start(after: deadline.remaining(), expire: expire)
    }

    /// Stops the clock for intent `number`, which finished (or was given up) in time.
    func finish(_ number: Int) {
        timing.finish(number)
    }

    /// How many intents are on the clock.
    var pendingCount: Int { timing.pendingCount }
}

@MainActor
private protocol IntentTiming {
    var limit: Duration { get }
    var pendingCount: Int { get }
    func start(_ number: Int, expire: @escaping @MainActor () -> Void) -> IntentDeadline
    func start(after delay: Duration, expire: @escaping @MainActor () -> Void) -> Task<Void, Never>
    func finish(_ number: Int)
}

/// When an intent's time is up, kept across its deliveries: an intent delivered again to the screen a reload built
/// in place of the one it was sent to gets what is left of its limit, not a new one (a plugin reloaded every second
/// would otherwise keep an intent unanswered for as long as the reloads go on).
@MainActor
final class IntentDeadline {
    /// The time left, on the session's clock; zero or less once it has passed.
    let remaining: @MainActor () -> Duration

    init(remaining: @escaping @MainActor () -> Duration) {
        self.remaining = remaining
    }
}

/// An intent on the clock: its deadline as a time since the timer's origin.
private struct TimedIntent {
    var number: Int
    var deadline: Duration
    var expire: @MainActor () -> Void
}

/// The timer over a concrete clock.
///
/// The queue holds deadlines as durations since `origin`, not as the clock's instants: this class is instantiated
/// for a clock opened at run time, so its code is not specialized, and a queue of a generic element cost every intent
/// about 15,000 instructions in unspecialized array operations (callgrind). Only reading and sleeping on the clock
/// remain generic. The origin is read at the first intent, where every later one reads the clock: a session's
/// clock is the one its work sees (`SessionClock`, virtual in a replay).
@MainActor
private final class ClockTiming<C: Clock<Duration>>: IntentTiming {
    let limit: Duration
    private let clock: C
    /// Read again at the first intent. Not an optional: that would be a generic `Optional` to look up at run time.
    private var origin: C.Instant
    private var hasOrigin = false
    /// The intents under way, oldest (earliest deadline) first.
    private var queue: [TimedIntent] = []
    private var isSleeping = false

    init(limit: Duration, clock: C) {
        self.limit = limit
        self.clock = clock
        self.origin = clock.now
    }

    func start(_ number: Int, expire: @escaping @MainActor () -> Void) -> IntentDeadline {
        let deadline = elapsed + limit
        queue.append(TimedIntent(number: number, deadline: deadline, expire: expire))
        if !isSleeping {
            isSleeping = true
            Task { await self.run() }
        }
        return IntentDeadline { [self] in deadline - elapsed }
    }

    func start(after delay: Duration, expire: @escaping @MainActor () -> Void) -> Task<Void, Never> {
        let clock = self.clock
        // From now, not from when the task first runs: a clock that moved meanwhile would put the end later.
        let deadline = clock.now.advanced(by: delay)
        return Task {
            if delay > .zero { try? await clock.sleep(until: deadline, tolerance: nil) }
            guard !Task.isCancelled else { return }
            expire()
        }
    }

    func finish(_ number: Int) {
        // Usually the only one, or the oldest (intents end in about the order they start).
        if queue.first?.number == number {
            queue.removeFirst()
        } else {
            queue.removeAll { $0.number == number }
        }
    }

    var pendingCount: Int { queue.count }

    /// The time since `origin` on the clock; the first reading sets the origin.
    private var elapsed: Duration {
        let now = clock.now
        guard hasOrigin else {
            origin = now
            hasOrigin = true
            return .zero
        }
        return origin.duration(to: now)
    }

    private func run() async {
        while let oldest = queue.first {
            try? await clock.sleep(until: origin.advanced(by: oldest.deadline), tolerance: nil)
            let now = elapsed
            while let head = queue.first, head.deadline <= now {
                queue.removeFirst()
                head.expire()
            }
        }
        isSleeping = false
    }
}
