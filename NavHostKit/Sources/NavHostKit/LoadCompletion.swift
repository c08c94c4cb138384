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
/// A load that never ends holds its waiting intents until the daemon answers them `IntentTimedOut`.
///
/// - Since: NavHostKit 2.2.0.
@MainActor
public final class LoadCompletion {
    // MARK: Private Properties

    private var waiting: [CheckedContinuation<Void, Never>] = []

    // MARK: Initialization

    public init() {}

    // MARK: Public Functions

    /// Returns at once when `isLoading` is `false`; otherwise at the next ``signal()``.
    public func wait(while isLoading: Bool) async {
        guard isLoading else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// The loaded value of `state`, once it is not loading.
    ///
    /// - Throws: ``NotLoaded`` when `state` is then not loaded: its load failed, or has not started.
    public func value<Value>(of state: @autoclosure () -> LoadingState<Value>) async throws(NotLoaded) -> Value {
        if case .loading = state() { await wait(while: true) }
        guard let value = state().value else { throw NotLoaded() }
        return value
    }

    /// Lets every intent waiting go on: call it when a load ends, loaded or failed.
    public func signal() {
        let resumed = waiting
        waiting = []
        for continuation in resumed { continuation.resume() }
    }
}

extension LoadCompletion {
    /// Thrown by ``LoadCompletion/value(of:)`` for a screen with nothing loaded to act on.
    public struct NotLoaded: Error, CustomStringConvertible {
        public init() {}

        public var description: String { "the screen has nothing loaded to act on: its load failed or has not started" }
    }
}
