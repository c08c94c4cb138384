import Synchronization

/// A live view of one session: a full snapshot first, then one event per revision.
///
/// A watcher holds at most ``limit`` undelivered updates. When a change would exceed that, the queue is replaced by
/// one coalesced snapshot (the latest state of every screen) and events continue after it. If the queue fills up
/// again before the consumer has taken that snapshot, the consumer is not reading at all: the watcher ends with
/// ``SessionWatcher/Ending/tooSlow``. Memory per watcher is therefore bounded whatever the client does.
public final class SessionWatcher: AsyncSequence, Sendable {
    public typealias Element = Update
    public typealias Failure = any Error

    /// One thing a watcher delivers.
    public enum Update: Sendable, Hashable {
        /// The whole session; `coalesced` is `true` when it stands in for events the consumer was too slow to take.
        case snapshot(SessionSnapshot, coalesced: Bool)
        /// One change, in revision order.
        case event(SessionEvent)
    }

    /// Why a watcher ended early.
    public enum Ending: Error, Sendable, Hashable {
        /// The consumer did not keep up even with coalesced updates.
        case tooSlow
        /// The session went away (the daemon is stopping).
        case sessionClosed
    }

    private struct State {
        var queue: [Update] = []
        var waiter: CheckedContinuation<Update?, any Error>?
        var finished: Ending??
    }

    private let state = Mutex(State())
    private let onCancel: @Sendable (SessionWatcher) -> Void

    /// How many undelivered updates the watcher holds before it coalesces.
    public let limit: Int

    init(limit: Int, first: Update, onCancel: @escaping @Sendable (SessionWatcher) -> Void) {
        precondition(limit >= 2, "a watcher must hold at least a snapshot and one event")
        self.limit = limit
        self.onCancel = onCancel
        state.withLock { $0.queue = [first] }
    }

    // MARK: - Consuming

    /// The next update; `nil` once the watcher was cancelled.
    ///
    /// - Throws: ``Ending`` when the watcher ended early.
    public func next() async throws -> Update? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Update?, any Error>? = state.withLock { state in
                    if !state.queue.isEmpty { return .success(state.queue.removeFirst()) }
                    if let finished = state.finished {
                        return finished.map { .failure($0) } ?? .success(nil)
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the watcher; a pending ``next()`` returns `nil`.
    public func cancel() {
        finish(with: nil)
        onCancel(self)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let watcher: SessionWatcher
        public mutating func next() async throws -> Update? { try await watcher.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(watcher: self) }

    /// How many updates wait to be taken.
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    // MARK: - Producing (the session, on the main actor)

    /// Queues `event`, coalescing into `snapshot()` or ending the watcher when the consumer lags.
    func deliver(_ event: SessionEvent, snapshot: () -> SessionSnapshot) {
        enum Decision { case delivered, coalesce, tooSlow, ignored }
        let decision: Decision = state.withLock { state in
            guard state.finished == nil else { return .ignored }
            if let waiter = state.waiter {
                state.waiter = nil
                waiter.resume(returning: .event(event))
                return .delivered
            }
            if state.queue.count < limit {
                state.queue.append(.event(event))
                return .delivered
            }
            if case .snapshot(_, coalesced: true) = state.queue.first { return .tooSlow }
            return .coalesce
        }
        switch decision {
        case .delivered, .ignored:
            return
        case .tooSlow:
            finish(with: .tooSlow)
            onCancel(self)
        case .coalesce:
            let current = snapshot()
            state.withLock { $0.queue = [.snapshot(current, coalesced: true)] }
        }
    }

    /// Ends the watcher: a waiting consumer gets `failure`, or `nil` for a plain stop.
    func finish(with failure: Ending?) {
        let waiter: CheckedContinuation<Update?, any Error>? = state.withLock { state in
            guard state.finished == nil else { return nil }
            state.finished = .some(failure)
            if failure != nil { state.queue.removeAll() }
            defer { state.waiter = nil }
            return state.waiter
        }
        if let failure {
            waiter?.resume(throwing: failure)
        } else {
            waiter?.resume(returning: nil)
        }
    }
}
