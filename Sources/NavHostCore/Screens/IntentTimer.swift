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
    func start(_ number: Int, expire: @escaping @MainActor () -> Void) {
        timing.start(number, expire: expire)
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
    func start(_ number: Int, expire: @escaping @MainActor () -> Void)
    func finish(_ number: Int)
}

/// The timer over a concrete clock, whose instants it keeps.
@MainActor
private final class ClockTiming<C: Clock<Duration>>: IntentTiming {
    private struct Entry {
        var number: Int
        var deadline: C.Instant
        var expire: @MainActor () -> Void
    }

    let limit: Duration
    private let clock: C
    /// The intents under way, oldest (earliest deadline) first.
    private var queue: [Entry] = []
    private var isSleeping = false

    init(limit: Duration, clock: C) {
        self.limit = limit
        self.clock = clock
    }

    func start(_ number: Int, expire: @escaping @MainActor () -> Void) {
        queue.append(Entry(number: number, deadline: clock.now.advanced(by: limit), expire: expire))
        guard !isSleeping else { return }
        isSleeping = true
        Task { await self.run() }
    }

    func finish(_ number: Int) {
        queue.removeAll { $0.number == number }
    }

    var pendingCount: Int { queue.count }

    private func run() async {
        while let oldest = queue.first {
            try? await clock.sleep(until: oldest.deadline, tolerance: nil)
            let now = clock.now
            while let head = queue.first, head.deadline <= now {
                queue.removeFirst()
                head.expire()
            }
        }
        isSleeping = false
    }
}
