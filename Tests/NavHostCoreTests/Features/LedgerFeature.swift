import NavHostKit
import Observation
import Synchronization

/// Screens whose work writes to the feature's store at moments a test chooses, to test which writes an intent that
/// ran out of time, or whose screen closed, may still make: `ledger.main` saves, or closes the `ledger.entry` it opened
/// and waits forever; `ledger.entry` starts a task in `onDisappear` that writes once its gate opens, and has an intent
/// that begins a write and has its opener close it, in one stretch.
enum LedgerRoute: Route {
    static let namespace = "ledger"
    case main
    case entry
}

/// A door that work waits at until a test opens it; once open, it stays open.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open, cancelled or not.
    func wait() async {
        await withCheckedContinuation { waiter in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(waiter) }
                return state.isOpen
            }
            if isOpen { waiter.resume() }
        }
    }
}

@MainActor
@Observable
final class LedgerMainViewModel: ViewModel {
    struct State: Encodable, Equatable {
        var saved: String?
    }

    enum Intent: ViewModelIntent {
        /// Writes `"saved": true`, and sets `saved` to what became of the write.
        case onTappedSave
        /// Opens `ledger.entry`.
        case onTappedOpenEntry
        /// Closes the `ledger.entry` it opened, then waits forever, ignoring cancellation.
        case onTappedCloseEntryAndHang
        static let names = ["onTappedSave", "onTappedOpenEntry", "onTappedCloseEntryAndHang"]
    }

    private(set) var state = State()
    private let router: Router<LedgerRoute>
    private let store: any KeyValueStore

    init(router: Router<LedgerRoute>, store: any KeyValueStore) {
        self.router = router
        self.store = store
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedSave:
            do {
                try await store.setValue(true, forKey: "saved")
                state.saved = "written"
            } catch {
                state.saved = "refused: \(error)"
            }
        case .onTappedOpenEntry:
            router.navigate(to: .entry)
        case .onTappedCloseEntryAndHang:
            router.pop()
            await Gate().wait()
        }
    }
}

@MainActor
@Observable
final class LedgerEntryViewModel: ViewModel {
    private let store: any KeyValueStore
    private let cleanupGate: Gate
    private let cleanupDone: @Sendable (String) -> Void
    /// Pops through the Router of the screen that opened this one: a close its own navigation did not ask for.
    private let popThroughOpener: @MainActor () -> Void

    init(
        store: any KeyValueStore,
        cleanupGate: Gate,
        cleanupDone: @escaping @Sendable (String) -> Void,
        popThroughOpener: @escaping @MainActor () -> Void
    ) {
        self.store = store
        self.cleanupGate = cleanupGate
        self.cleanupDone = cleanupDone
        self.popThroughOpener = popThroughOpener
    }

    enum Intent: ViewModelIntent {
        /// Begins writing `"entrySaved": true`, then, in the same stretch, pops this screen through its opener's Router
        /// (a callback its coordinator wired), then waits for the write.
        case onTappedSaveThenCloseThroughOpener
        static let names = ["onTappedSaveThenCloseThroughOpener"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedSaveThenCloseThroughOpener:
            let store = self.store
            // Runs until the store first suspends, on this stretch: the write is under way (counted) when it returns.
            let write = Task.immediate { @MainActor in
                _ = try await store.updateValue(forKey: "entrySaved") { _ in true }
            }
            popThroughOpener()
            _ = await write.result
        }
    }

    func onDisappear() {
        let (store, cleanupGate, cleanupDone) = (self.store, self.cleanupGate, self.cleanupDone)
        Task {
            await cleanupGate.wait()
            do {
                try await store.setValue(true, forKey: "cleanedUp")
                cleanupDone("written")
            } catch {
                cleanupDone("refused: \(error)")
            }
        }
    }
}

@MainActor
final class LedgerCoordinator: Coordinator {
    private let feature: LedgerFeature
    private let store: any KeyValueStore
    /// The Router of the latest `ledger.main` made: the opener an entry pops through.
    private var mainRouter: Router<LedgerRoute>?

    init(feature: LedgerFeature, store: any KeyValueStore) {
        self.feature = feature
        self.store = store
    }

    func makeViewModel(for route: LedgerRoute, router: Router<LedgerRoute>) -> any ViewModel {
        switch route {
        case .main:
            mainRouter = router
            return LedgerMainViewModel(router: router, store: store)
        case .entry:
            return LedgerEntryViewModel(
                store: store,
                cleanupGate: feature.cleanupGate,
                cleanupDone: feature.cleanupDone,
                popThroughOpener: { [weak self] in self?.mainRouter?.pop() }
            )
        }
    }
}

/// The feature; `cleanupGate` lets the task an entry's `onDisappear` started write, and `cleanupOutcome` says what
/// became of that write.
final class LedgerFeature: FeatureModule, Sendable {
    let name = "Ledger"
    let screens = [
        ScreenDescriptor(route: "ledger.main", viewModel: LedgerMainViewModel.self),
        ScreenDescriptor(route: "ledger.entry", viewModel: LedgerEntryViewModel.self),
    ]
    let cleanupGate = Gate()
    private let cleanup = Mutex<(outcome: String?, waiter: CheckedContinuation<String, Never>?)>((nil, nil))

    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        LedgerCoordinator(feature: self, store: services.store)
    }

    fileprivate var cleanupDone: @Sendable (String) -> Void {
        { [self] outcome in
            let waiter = cleanup.withLock { cleanup in
                cleanup.outcome = outcome
                defer { cleanup.waiter = nil }
                return cleanup.waiter
            }
            waiter?.resume(returning: outcome)
        }
    }

    /// What became of the write of the task an entry's `onDisappear` started, once it was made.
    func cleanupOutcome() async -> String {
        await withCheckedContinuation { waiter in
            let outcome = cleanup.withLock { cleanup in
                if cleanup.outcome == nil { cleanup.waiter = waiter }
                return cleanup.outcome
            }
            if let outcome { waiter.resume(returning: outcome) }
        }
    }
}
