public import NavHostJSON
public import NavHostKit

/// One entry of a session's stack: a screen ID, a route, and the ViewModel behind it.
///
/// A screen starts its ViewModel's `onAppear` when it is put on the stack and tracks every task it starts for the
/// ViewModel. When it leaves the stack it calls `onDisappear`, cancels that work, and stops reporting state: nothing
/// a popped screen does afterwards reaches a client.
@MainActor
final class Screen {
    // MARK: Private Properties

    private let model: ScreenModel
    /// Cancels each task the screen started for its ViewModel, by task number.
    private var inFlight: [Int: () -> Void] = [:]
    private var nextTaskNumber = 0

    // MARK: Public Properties

    let id: ScreenID
    let route: RouteRequest
    let presentation: Presentation
    /// The state as last reported to clients.
    private(set) var state: JSONValue
    /// Whether the screen has left the stack.
    private(set) var isClosed = false
    /// Whether the screen left the stack through its own ViewModel's navigation (a save that pops, a close button).
    private(set) var closedItself = false
    /// Called (on the main actor, after the mutating stretch) when the state may have changed.
    var onStateMayHaveChange: (@MainActor (Screen) -> Void)?

    // MARK: Initialization

    init(id: ScreenID, route: RouteRequest, presentation: Presentation, model: ScreenModel) {
        self.id = id
        self.route = route
        self.presentation = presentation
        self.model = model
        self.state = (try? model.encodeState()) ?? .null
    }

    // MARK: Lifecycle

    /// Starts observing state and runs `onAppear`.
    func appear() {
        trackState()
        run { model in await model.viewModel.onAppear() }
    }

    /// Leaves the stack: `onDisappear`, then cancels the screen's work and stops reporting state.
    ///
    /// - Parameter itself: Whether the screen's own ViewModel asked for the navigation that closes it. Its intent
    ///   in flight then still answers with its own outcome; any other close answers `screenClosed`.
    func close(itself: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        closedItself = itself
        model.viewModel.onDisappear()
        for cancel in inFlight.values { cancel() }
        inFlight.removeAll()
    }

    // MARK: Public Functions

    /// Whether the screen runs no task for its ViewModel.
    var isIdle: Bool { inFlight.isEmpty }

    var snapshot: ScreenSnapshot {
        ScreenSnapshot(id: id, route: route, presentation: presentation, state: state)
    }

    /// Encodes the current state; returns it when it differs from what clients last saw, and records it as seen.
    func takeChangedState() -> JSONValue? {
        guard !isClosed else { return nil }
        guard let current = try? model.encodeState(), current != state else { return nil }
        state = current
        return current
    }

    /// Delivers an intent and waits until the ViewModel has handled it.
    ///
    /// - Throws: ``NavigationError`` — unknown intent, bad arguments, a failure the ViewModel threw, or
    ///   `screenClosed` when the screen left the stack before the intent finished.
    func send(_ message: IntentMessage) async throws(NavigationError) {
        guard !isClosed else { throw .screenClosed(id.rawValue) }
        let outcome: (any Error)? = await runAndWait { model -> (any Error)? in
            do {
                try await model.handle(message)
                return nil
            } catch {
                return error
            }
        }
        guard !isClosed || closedItself else { throw .screenClosed(id.rawValue) }
        switch outcome {
        case nil:
            return
        case let error as IntentError:
            throw Self.navigationError(for: error)
        case let error?:
            throw NavigationError(
                .intentFailed,
                "\(message.name) failed: \(error)",
                parameters: ["screen": .string(id.rawValue), "intent": .string(message.name)]
            )
        }
    }

    /// The restorable state, when the ViewModel keeps one and it encodes.
    var restorableState: JSONValue? {
        (try? model.encodeRestorableState()) ?? nil
    }

    /// Hands back state saved earlier; `false` when the ViewModel keeps none or it does not decode.
    func restore(_ saved: JSONValue) -> Bool {
        model.restoreState(saved)
    }
}

// MARK: - Private Functions

extension Screen {
    fileprivate func trackState() {
        guard !isClosed else { return }
        model.trackState { [weak self] in
            // Fires at the first mutation, before the value is stored: look again once the stretch is over.
            Task { @MainActor in self?.stateMayHaveChanged() }
        }
    }

    fileprivate func stateMayHaveChanged() {
        guard !isClosed else { return }
        trackState()
        onStateMayHaveChange?(self)
    }

    /// Runs `work` as a task the screen owns and cancels when it closes.
    fileprivate func run(_ work: @escaping @MainActor (ScreenModel) async -> Void) {
        let task = startTask(work)
        inFlight[task.number] = { task.task.cancel() }
    }

    /// Runs `work` as a task the screen owns and waits for its result; the caller's cancellation cancels it too.
    fileprivate func runAndWait<Result: Sendable>(
        _ work: @escaping @MainActor (ScreenModel) async -> Result
    ) async -> Result {
        let task = startTask(work)
        inFlight[task.number] = { task.task.cancel() }
        return await withTaskCancellationHandler {
            await task.task.value
        } onCancel: {
            task.task.cancel()
        }
    }

    private func startTask<Result: Sendable>(
        _ work: @escaping @MainActor (ScreenModel) async -> Result
    ) -> (number: Int, task: Task<Result, Never>) {
        let number = nextTaskNumber
        nextTaskNumber += 1
        let model = self.model
        let task = Task { @MainActor [weak self] in
            defer { self?.inFlight[number] = nil }
            return await work(model)
        }
        return (number, task)
    }

    fileprivate static func navigationError(for error: IntentError) -> NavigationError {
        switch error {
        case .unknownIntent(let name):
            return NavigationError(.intentNotFound, error.description, parameters: ["intent": .string(name)])
        case .invalidArguments(let name, let reason):
            return NavigationError(
                .invalidIntentArguments,
                error.description,
                parameters: ["intent": .string(name), "reason": .string(reason)]
            )
        }
    }
}
