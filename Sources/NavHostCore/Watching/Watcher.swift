import Synchronization

/// A live view of something that changes: a full snapshot first, then one event per change.
///
/// A watcher holds at most ``limit`` undelivered updates. When a change would exceed that, the queue is replaced by
/// one coalesced snapshot (the latest state) and events continue after it; and again each time it fills, whether or
/// not the consumer has taken the snapshot before. Memory per watcher is therefore bounded whatever the consumer does,
/// and one that takes updates more slowly than changes come still catches up with the latest state whenever it takes
/// the queue's first. The watcher does not give up on a consumer that takes nothing: a connection's replies that back
/// up are its send time limit's (a socket's consumer waits to write while its client reads nothing).
///
/// The watcher once ended a consumer that had not taken its coalesced snapshot by the queue's next fill (`tooSlow`,
/// the `WatcherTooSlow` error): that ended clients that read, only slower than changes came. Between the consumer
/// and its client are the socket's buffers, and the kernel lets a writer go on only once its reader has emptied most
/// of them, so the consumer of a slow reader takes nothing for hundreds of changes at a time.
///
/// A consumer that can take an event without waiting (a socket it can write to at once) may say so with
/// ``deliverDirectly(through:)``: while it waits in ``next()`` with nothing queued, an event goes straight to it, and the
/// waiting consumer is not woken. A change to a thousand watchers is then a thousand writes, not a thousand task
/// wake-ups each followed by a write.
///
/// Sessions hand out ``SessionWatcher``s, the plugin control ``PluginWatcher``s.
public final class Watcher<Snapshot: Sendable & Hashable, Event: Sendable & Hashable>: AsyncSequence, Sendable {
    public typealias Element = Update
    public typealias Failure = any Error

    /// One thing a watcher delivers.
    public enum Update: Sendable, Hashable {
        /// The whole state; `coalesced` is `true` when it stands in for events the consumer was too slow to take.
        case snapshot(Snapshot, coalesced: Bool)
        /// One change, in order.
        case event(Event)
    }

    /// Why a watcher ended early.
    public enum Ending: Error, Sendable, Hashable {
        /// What it watched went away for good: its session was closed.
        case closed
        /// The daemon is stopping: what it watched is there again once it is back.
        case stopping
    }

    /// Takes one event at once, on the producer's thread; `false` when it cannot, and then it took nothing.
    public typealias DirectDelivery = @Sendable (Event) -> Bool

    private struct State {
        var queue: [Update] = []
        /// Whether the consumer waits in ``next()``: `waiter` holds its continuation. The producer asks on every
        /// change, and asking `waiter` itself copies the continuation (a resilient type of the concurrency library,
        /// copied through its witnesses), about 240 instructions a watcher and change.
        private(set) var consumerWaits = false
        private(set) var waiter: CheckedContinuation<Update?, any Error>?
        var finished: Ending??
        var direct: DirectConsumer?

        /// Keeps the continuation of a consumer that waits in ``next()``.
        mutating func wait(with continuation: CheckedContinuation<Update?, any Error>) {
            waiter = continuation
            consumerWaits = true
        }

        /// The continuation of the waiting consumer, which no longer waits here; `nil` when none waits.
        mutating func takeWaiter() -> CheckedContinuation<Update?, any Error>? {
            guard consumerWaits else { return nil }
            consumerWaits = false
            return waiter.take()
        }
    }

    /// The consumer's ``DirectDelivery``, in a class: handed out of the lock as a closure, it was wrapped in a
    /// converting closure on the way out and another on the way in (the lock's result is generic), two allocations
    /// per event; a reference is handed out as it is.
    private final class DirectConsumer: Sendable {
        let take: DirectDelivery

        init(_ take: @escaping DirectDelivery) {
            self.take = take
        }
    }

    private let state = Mutex(State())
    private let onCancel: @Sendable (Watcher) -> Void

    /// How many undelivered updates the watcher holds before it coalesces.
    public let limit: Int

    package init(limit: Int, first: Update, onCancel: @escaping @Sendable (Watcher) -> Void) {
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
                    state.wait(with: continuation)
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
        let watcher: Watcher
        public mutating func next() async throws -> Update? { try await watcher.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(watcher: self) }

    /// How many updates wait to be taken.
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// Whether the consumer waits in ``next()`` for an update.
    var hasWaitingConsumer: Bool { state.withLock { $0.consumerWaits } }

    /// Lets `delivery` take events while the consumer waits in ``next()`` with nothing queued.
    ///
    /// The order of updates stays the order of changes: an event goes to `delivery` only when every update before it
    /// has been taken and the consumer is waiting for the next, so whatever the consumer does with the updates it takes
    /// is done before. An event `delivery` refuses (it returns `false`) wakes the consumer as usual, and so do
    /// snapshots and the end. `delivery` runs on the producer's thread (the session's, the main actor) and must not
    /// block or call back into the watcher.
    public func deliverDirectly(through delivery: @escaping DirectDelivery) {
        let consumer = DirectConsumer(delivery)
        state.withLock { $0.direct = consumer }
    }

    // MARK: - Producing (the owner, on the main actor)

    /// Queues `event`, or coalesces the queue into `snapshot()` when it is full.
    package func deliver(_ event: Event, snapshot: () -> Snapshot) {
        let direct: DirectConsumer? = state.withLock { state in
            state.finished == nil && state.consumerWaits ? state.direct : nil
        }
        // The consumer waits with nothing queued, and only this producer can change that (a cancellation ends the
        // watcher, and then the direct delivery refuses or its reply is refused by the connection).
        if let direct, direct.take(event) { return }
        let decision: DeliveryDecision = state.withLock { state in
            guard state.finished == nil else { return .ignored }
            if let waiter = state.takeWaiter() {
                waiter.resume(returning: .event(event))
                return .delivered
            }
            if state.queue.count < limit {
                state.queue.append(.event(event))
                return .delivered
            }
            return .coalesce
        }
        switch decision {
        case .delivered, .ignored:
            return
        case .coalesce:
            let current = snapshot()
            state.withLock { $0.queue = [.snapshot(current, coalesced: true)] }
        }
    }

    /// Ends the watcher: a waiting consumer gets `failure`, or `nil` for a plain stop.
    package func finish(with failure: Ending?) {
        let waiter: CheckedContinuation<Update?, any Error>? = state.withLock { state in
            guard state.finished == nil else { return nil }
            state.finished = .some(failure)
            if failure != nil { state.queue.removeAll() }
            return state.takeWaiter()
        }
        if let failure {
            waiter?.resume(throwing: failure)
        } else {
            waiter?.resume(returning: nil)
        }
    }
}

/// What ``Watcher/deliver(_:snapshot:)`` decided under the lock.
private enum DeliveryDecision { case delivered, coalesce, ignored }
