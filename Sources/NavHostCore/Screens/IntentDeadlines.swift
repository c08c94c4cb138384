/// The intent time limit of one screen: one timer for all of its intents in flight, not one per intent.
///
/// Every intent gets the same limit, so deadlines come in the order intents start: the pending ones form a queue, and
/// one sleeping task waits for the oldest. When it wakes it times out every intent whose deadline has passed and sleeps
/// again until the next deadline, if any. An intent that finishes only leaves the queue. So a busy screen starts one
/// timer task per time limit, whatever its rate of intents, and an idle one none.
@MainActor
protocol IntentDeadlines: AnyObject {
    /// Starts the clock for one intent; `onTimeout` runs (on the main actor) if it is still pending at its deadline.
    func start(onTimeout: @escaping @MainActor () -> Void) -> Int
    /// The intent `ticket` finished: it no longer times out.
    func finish(_ ticket: Int)
    /// Stops the timer; nothing pending times out any more.
    func cancelAll()
}

/// Builds the deadlines of a screen on `clock`, opened to its concrete type.
@MainActor
func makeIntentDeadlines(limit: Duration, clock: any Clock<Duration>) -> any IntentDeadlines {
    func make<C: Clock<Duration>>(_ clock: C) -> any IntentDeadlines {
        ClockIntentDeadlines(limit: limit, clock: clock)
    }
    return make(clock)
}

@MainActor
private final class ClockIntentDeadlines<C: Clock<Duration>>: IntentDeadlines {
    private struct Pending {
        var ticket: Int
        var deadline: C.Instant
        var onTimeout: @MainActor () -> Void
    }

    private let limit: Duration
    private let clock: C
    /// Pending intents, oldest (earliest deadline) first; finished ones leave a `nil`, dropped from the front.
    private var pending: [Pending?] = []
    private var head = 0
    /// Where each pending ticket is in `pending`.
    private var positions: [Int: Int] = [:]
    private var nextTicket = 0
    private var timer: Task<Void, Never>?

    init(limit: Duration, clock: C) {
        self.limit = limit
        self.clock = clock
    }

    func start(onTimeout: @escaping @MainActor () -> Void) -> Int {
        let ticket = nextTicket
        nextTicket += 1
        positions[ticket] = pending.count
        pending.append(Pending(ticket: ticket, deadline: clock.now.advanced(by: limit), onTimeout: onTimeout))
        if timer == nil { arm() }
        return ticket
    }

    func finish(_ ticket: Int) {
        guard let position = positions.removeValue(forKey: ticket) else { return }
        pending[position] = nil
        compact()
    }

    func cancelAll() {
        timer?.cancel()
        timer = nil
        pending.removeAll()
        positions.removeAll()
        head = 0
    }

    /// Sleeps until the oldest pending deadline, then times out what is due.
    private func arm() {
        guard let first = pending[head...].first(where: { $0 != nil }) ?? nil else {
            timer = nil
            return
        }
        let deadline = first.deadline
        timer = Task { [weak self, clock] in
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            self?.fire()
        }
    }

    private func fire() {
        let now = clock.now
        while head < pending.count {
            guard let entry = pending[head] else {
                head += 1
                continue
            }
            guard entry.deadline <= now else { break }
            pending[head] = nil
            positions[entry.ticket] = nil
            head += 1
            entry.onTimeout()
        }
        compact()
        arm()
    }

    /// Drops finished entries from the front, reclaims the array once it is empty, and rebuilds it when mostly
    /// finished entries remain behind a slow one, so its size stays proportional to the intents still pending.
    private func compact() {
        while head < pending.count, pending[head] == nil { head += 1 }
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        } else if pending.count > 256, positions.count * 4 < pending.count {
            pending = pending[head...].filter { $0 != nil }
            head = 0
            positions.removeAll(keepingCapacity: true)
            for (position, entry) in pending.enumerated() {
                if let entry { positions[entry.ticket] = position }
            }
        }
    }
}
