/// How a screen's intent ended for the caller waiting on it.
enum IntentOutcome: Sendable {
    /// The ViewModel handled it, with the error it threw or `nil`.
    case finished((any Error)?)
    case closed
    case timedOut(Duration)
}

/// The first of several events to finish wins; later ones are ignored. Main-actor only.
///
/// One waiter at most. ``wait()`` looks for the outcome and registers its waiter in one stretch on the main actor:
/// every `await` may give the main actor up, even one that stays on it (it does in a task that prefers another
/// executor, as a Varlink connection's tasks do), so an outcome checked before an `await` and a waiter registered
/// after it would let a ``finish(_:)`` in between find no waiter, and the caller would wait forever.
@MainActor
final class IntentRace {
    // Exclusivity: `outcome` and `waiter` skip the runtime's check of exclusive access (two per intent). No two
    // accesses to either can overlap: the class is main-actor, both are written only here, and every access is a
    // read, or a whole write in its own two methods; resuming the waiter only schedules its task, which runs later.
    /// The first outcome, once it is in.
    @exclusivity(unchecked) private(set) var outcome: IntentOutcome?
    @exclusivity(unchecked) private var waiter: CheckedContinuation<IntentOutcome, Never>?

    func finish(_ outcome: IntentOutcome) {
        guard self.outcome == nil else { return }
        self.outcome = outcome
        waiter?.resume(returning: outcome)
        waiter = nil
    }

    func wait() async -> IntentOutcome {
        // Without an `await`: an outcome already in needs no trip through the main actor's queue.
        if let outcome { return outcome }
        return await withCheckedContinuation { waiter in
            // The body runs on the main actor without a break: nothing can finish the race between this check and
            // the registration. The check above does not count: the `await` may have let `finish` run.
            if let outcome {
                waiter.resume(returning: outcome)
            } else {
                precondition(self.waiter == nil, "a race has one waiter")
                self.waiter = waiter
            }
        }
    }
}
