internal import Synchronization

/// Holds the intents that arrive while a screen loads until the load has ended.
///
/// Headless, nothing stops a front end from sending an intent while `onAppear` is still loading the screen: a voice
/// assistant navigates and sends in one breath. The seeds' `guard let value = state.value else { return }` then
/// answers the intent as done although it did nothing. An intent that needs what is loading waits for the load
/// instead, then acts on what it finds, and fails (throws, and the front end is answered `IntentFailed`) when there
/// is nothing to act on:
///
/// ```swift
/// @ObservationIgnored private let loadCompletion = LoadCompletion()
///
/// func onTappedAdd(_ title: String) async throws {
///     let content = try await loadCompletion.value(of: state)
///     …
/// }
///
/// private func loadOrders() async {
///     guard !state.isLoading else { return }
///     state = .loading
///     defer { loadCompletion.signal() }
///     …
/// }
/// ```
///
/// An intent cancelled while it waits (its screen closed, a reload rebuilt it, the daemon's time limit ran out) stops
/// waiting at once and throws `CancellationError`: it does not act later on a screen that no longer serves.
///
/// - Since: NavHostKit 2.2.0.
@MainActor
public final class LoadCompletion {
    // MARK: Private Properties

    /// The intents waiting, by number; read by a cancellation, which may come from any thread.
    private nonisolated let waiting = Mutex<Waiting>(Waiting())

    private struct Waiting: ~Copyable {
        var continuations: [Int: CheckedContinuation<Void, any Error>] = [:]
        var next = 0
    }

    // MARK: Initialization

    public init() {}

    // MARK: Public Functions

    /// Returns once `isLoading` is `false`, looked at again at each ``signal()`` (a retry may start a new load before
    /// a waiter resumes).
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    public func wait(while isLoading: @autoclosure () -> Bool) async throws {
        while isLoading() { try await nextSignal() }
    }

    /// The loaded value of `state`, once it is not loading.
    ///
    /// - Throws: ``NotLoaded`` when `state` is then not loaded (its load failed, or has not started);
    ///   `CancellationError` when the task is cancelled while it waits.
    public func value<Value>(of state: @autoclosure () -> LoadingState<Value>) async throws -> Value {
        while case .loading = state() { try await nextSignal() }
        guard let value = state().value else { throw NotLoaded() }
        return value
    }

    /// Lets every intent waiting go on: call it when a load ends, loaded or failed.
    public func signal() {
        let resumed = waiting.withLock { waiting in
            let continuations = waiting.continuations
            waiting.continuations = [:]
            return continuations
        }
        for continuation in resumed.values { continuation.resume() }
    }
}

// MARK: - Private Functions

extension LoadCompletion {
    private func nextSignal() async throws {
        try Task.checkCancellation()
        let number = waiting.withLock { waiting in
            waiting.next += 1
            return waiting.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock the cancellation takes: a cancel before this stretch is seen here, one after
                // it finds the continuation.
                let cancelled = self.waiting.withLock { waiting in
                    if Task.isCancelled { return true }
                    waiting.continuations[number] = continuation
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let continuation = self.waiting.withLock { $0.continuations.removeValue(forKey: number) }
            continuation?.resume(throwing: CancellationError())
        }
    }
}

extension LoadCompletion {
    /// Thrown by ``LoadCompletion/value(of:)`` for a screen with nothing loaded to act on.
    public struct NotLoaded: Error, CustomStringConvertible {
        public init() {}

        public var description: String { "the screen has nothing loaded to act on: its load failed or has not started" }
    }
}
