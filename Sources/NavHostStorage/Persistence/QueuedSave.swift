import Synchronization

/// A save queued in its caller's stretch, whose outcome the caller awaits later
/// (``SessionPersistence/queue(_:unlessRefused:)``, ``SessionPersistence/outcome(of:)``): the record is in the
/// persistence's queue before the caller's next suspension, while a task that called ``SessionPersistence/save(_:)``
/// would queue it only once that task runs.
///
/// The writer answers it once, whether or not its caller awaits it yet; the answer is kept for that caller.
public final class QueuedSave: Sendable {
    private enum State {
        /// Not answered yet; the caller that awaits the answer, once one does.
        case waiting(CheckedContinuation<Void, any Error>?)
        case answered(Result<Void, any Error>)
    }

    private let state = Mutex(State.waiting(nil))

    init() {}

    /// Answers the save: its caller, when it awaits the answer already, or else the one that comes.
    func answer(_ result: Result<Void, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard case .waiting(let caller) = state else { return nil }
            state = .answered(result)
            return caller
        }
        waiting?.resume(with: result)
    }

    /// Returns once the save is answered, at once when it was already; throws its failure.
    ///
    /// Awaited once, by the one caller that queued the save: a second wait while the first is suspended would take its
    /// place, and the first would never resume. A precondition stops that.
    nonisolated(nonsending) func answered() async throws {
        try await withCheckedThrowingContinuation { (caller: CheckedContinuation<Void, any Error>) in
            let answer = state.withLock { state -> Result<Void, any Error>? in
                switch state {
                case .answered(let result):
                    return result
                case .waiting(let earlier):
                    precondition(earlier == nil, "a queued save's answer is awaited once")
                    state = .waiting(caller)
                    return nil
                }
            }
            if let answer { caller.resume(with: answer) }
        }
    }
}
