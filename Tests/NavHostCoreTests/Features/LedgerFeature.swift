import NavHostKit
import Observation
import Synchronization

/// Screens whose work writes to the feature's store at moments a test chooses, to test which writes an intent that
/// ran out of time, or whose screen closed, may still make: `ledger.main` saves, or closes the `ledger.entry` it opened
/// and waits forever; `ledger.entry` starts a task in `onDisappear` that writes once its gate opens, and has intents
/// that write once the feature's `saveGate` opens, one of them after the entry has left through `ledger.main`'s
/// `Router` (the presenter dismisses it, as an editor's opener does), or once it has opened `ledger.leaver`, which goes
/// back to the root as it appears.
enum LedgerRoute: Route {
    static let namespace = "ledger"
    case main
    case entry
    case leaver
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

/// What became of a write made at a moment a test chose, told once it was made.
final class WriteOutcome: Sendable {
    private let state = Mutex<(outcome: String?, waiter: CheckedContinuation<String, Never>?)>((nil, nil))

    /// Tells `outcome` to the one waiting in ``value()``, now or when it comes.
    func record(_ outcome: String) {
        let waiter = state.withLock { state in
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// The outcome, once recorded: `"written"` or `"refused: "` and the error.
    func value() async -> String {
        await withCheckedContinuation { waiter in
            let outcome = state.withLock { state in
                if state.outcome == nil { state.waiter = waiter }
                return state.outcome
            }
            if let outcome { waiter.resume(returning: outcome) }
        }
    }
}

@MainActor
@Observable
final class LedgerEntryViewModel: ViewModel {
    enum Intent: ViewModelIntent {
        /// Waits, ignoring cancellation, until the feature's `saveGate` opens, then writes `"savedLate": true`.
        case onTappedSaveWhenLetGo
        /// Starts a task that writes `"savedLate": true` once `saveGate` opens, has `ledger.main`'s `Router` pop the
        /// entry, and returns: the intent is done before the write, and before its screen's close is looked at.
        case onTappedSaveLaterAndLeaveThroughMain
        /// Has `ledger.main`'s `Router` pop the entry, then waits, ignoring cancellation, until `saveGate` opens and
        /// writes `"savedLate": true`.
        case onTappedLeaveThroughMainThenSave
        /// Starts a task that writes `"savedLate": true` once `saveGate` opens, opens `ledger.leaver` (whose
        /// `onAppear` closes the entry: not the entry's own work), and returns.
        case onTappedSaveLaterAndOpenLeaver
        /// Pops the entry through its own `Router`, then waits, ignoring cancellation, until `saveGate` opens.
        case onTappedLeaveThenHang
        static let names = [
            "onTappedSaveWhenLetGo", "onTappedSaveLaterAndLeaveThroughMain", "onTappedLeaveThroughMainThenSave",
            "onTappedSaveLaterAndOpenLeaver", "onTappedLeaveThenHang",
        ]
    }

    private let store: any KeyValueStore
    private let cleanupGate: Gate
    private let cleanupDone: @Sendable (String) -> Void
    private let saveGate: Gate
    private let lateSave: WriteOutcome
    private let router: Router<LedgerRoute>
    /// Pops the entry through `ledger.main`'s `Router`, as a presenter that dismisses what it opened.
    private let leaveThroughMain: @MainActor () -> Void

    init(
        store: any KeyValueStore,
        cleanupGate: Gate,
        cleanupDone: @escaping @Sendable (String) -> Void,
        saveGate: Gate,
        lateSave: WriteOutcome,
        router: Router<LedgerRoute>,
        leaveThroughMain: @escaping @MainActor () -> Void
    ) {
        self.store = store
        self.cleanupGate = cleanupGate
        self.cleanupDone = cleanupDone
        self.saveGate = saveGate
        self.lateSave = lateSave
        self.router = router
        self.leaveThroughMain = leaveThroughMain
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedSaveWhenLetGo:
            await saveLate()
        case .onTappedSaveLaterAndLeaveThroughMain:
            Task { await saveLate() }
            leaveThroughMain()
        case .onTappedLeaveThroughMainThenSave:
            leaveThroughMain()
            await saveLate()
        case .onTappedSaveLaterAndOpenLeaver:
            Task { await saveLate() }
            router.navigate(to: .leaver)
        case .onTappedLeaveThenHang:
            router.pop()
            await saveGate.wait()
        }
    }

    /// Writes `"savedLate": true` once `saveGate` opens, and records what became of the write.
    private func saveLate() async {
        await saveGate.wait()
        do {
            try await store.setValue(true, forKey: "savedLate")
            lateSave.record("written")
        } catch {
            lateSave.record("refused: \(error)")
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

/// Goes back to the root as it appears, in `onAppear`'s first stretch: the screens it closes are closed by its work,
/// in the stretch of whatever opened it.
@MainActor
@Observable
final class LedgerLeaverViewModel: ViewModel {
    private let router: Router<LedgerRoute>

    init(router: Router<LedgerRoute>) {
        self.router = router
    }

    func onAppear() async {
        router.popToRoot()
    }
}

@MainActor
final class LedgerCoordinator: Coordinator {
    private let feature: LedgerFeature
    private let store: any KeyValueStore
    /// The `Router` of the last `ledger.main` made.
    private var mainRouter: Router<LedgerRoute>?

    init(feature: LedgerFeature, store: any KeyValueStore) {
        self.feature = feature
        self.store = store
    }

    func makeViewModel(for route: LedgerRoute, router: Router<LedgerRoute>) -> any ViewModel {
        switch route {
        case .main:
            makeMain(router: router)
        case .entry:
            LedgerEntryViewModel(
                store: store,
                cleanupGate: feature.cleanupGate,
                cleanupDone: feature.cleanupDone,
                saveGate: feature.saveGate,
                lateSave: feature.lateSave,
                router: router,
                leaveThroughMain: { [weak self] in self?.mainRouter?.pop() }
            )
        case .leaver:
            LedgerLeaverViewModel(router: router)
        }
    }

    /// A `ledger.main`, whose `Router` the entries opened after it leave through.
    private func makeMain(router: Router<LedgerRoute>) -> LedgerMainViewModel {
        mainRouter = router
        return LedgerMainViewModel(router: router, store: store)
    }
}

/// The feature; `cleanupGate` lets the task an entry's `onDisappear` started write, and `cleanupOutcome` says what
/// became of that write.
final class LedgerFeature: FeatureModule, Sendable {
    let name = "Ledger"
    let screens = [
        ScreenDescriptor(route: "ledger.main", viewModel: LedgerMainViewModel.self),
        ScreenDescriptor(route: "ledger.entry", viewModel: LedgerEntryViewModel.self),
        ScreenDescriptor(route: "ledger.leaver", viewModel: LedgerLeaverViewModel.self),
    ]
    let cleanupGate = Gate()
    /// Lets an entry's intents write.
    let saveGate = Gate()
    /// What became of the write of an entry's intent.
    let lateSave = WriteOutcome()
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
