import NavHostKit
import Observation

/// A feature whose intents end at chosen places among the main actor's jobs: the ways an intent's work and its
/// screen's closing interleave with the caller waiting for the intent's answer.
enum InterleavingRoute: Route {
    static let namespace = "interleaving"
    case main
}

@MainActor
@Observable
final class InterleavingViewModel: ViewModel {
    enum Intent: ViewModelIntent {
        /// Loads from a nonisolated data source, which suspends off the main actor for a varying time.
        case onTappedLoad
        /// Pops its own screen after `turns` main-actor jobs have run one after the other (each queues the next),
        /// and waits meanwhile until the closing cancels it.
        case onTappedClose(turns: Int)

        static let names = ["onTappedLoad", "onTappedClose"]
    }

    private(set) var state = 0
    @ObservationIgnored private var hasDisappeared = false
    private let router: Router<InterleavingRoute>
    private let record: InterleavingRecord

    init(router: Router<InterleavingRoute>, record: InterleavingRecord) {
        self.router = router
        self.record = record
    }

    func onDisappear() {
        hasDisappeared = true
    }

    func handle(_ intent: Intent) async {
        if hasDisappeared, !Task.isCancelled { record.uncancelledIntentsAfterDisappearing += 1 }
        switch intent {
        case .onTappedLoad:
            state = await Self.loadNext(after: state)
        case .onTappedClose(let turns):
            Self.takeTurns(turns) { [router] in router.pop() }
            try? await Task.sleep(for: .seconds(3600))
        }
    }

    /// Queues a job on the main actor that queues the next, `remaining` in all; the last one runs `last`. Each job
    /// goes behind whatever the main actor has queued by then, so `last` runs at a place the test chooses.
    static func takeTurns(_ remaining: Int, then last: @escaping @MainActor () -> Void) {
        Task { @MainActor in
            if remaining > 1 {
                takeTurns(remaining - 1, then: last)
            } else {
                last()
            }
        }
    }

    /// Runs on the global executor, like a data source; how long it takes varies from call to call.
    private nonisolated static func loadNext(after value: Int) async -> Int {
        var spun = 0
        for step in 0..<(value * 7919 % 3000) { spun &+= step }
        return value + 1 + (spun == -1 ? 1 : 0)
    }
}

/// What the feature's ViewModels saw, across all their screens.
@MainActor
final class InterleavingRecord {
    /// How many intents reached a ViewModel after its screen had left the stack, without being cancelled.
    ///
    /// An intent's work that had started (or was queued to start) when its screen closed is cancelled; one that
    /// started afterwards would not be, and nothing would stop it.
    var uncancelledIntentsAfterDisappearing = 0
}

@MainActor
final class InterleavingCoordinator: Coordinator {
    let record: InterleavingRecord
    init(record: InterleavingRecord) { self.record = record }

    func makeViewModel(for route: InterleavingRoute, router: Router<InterleavingRoute>) -> any ViewModel {
        InterleavingViewModel(router: router, record: record)
    }
}

final class InterleavingFeature: FeatureModule, @unchecked Sendable {
    let name = "Interleaving"
    let screens = [ScreenDescriptor(route: "interleaving.main", viewModel: InterleavingViewModel.self)]
    @MainActor let record = InterleavingRecord()

    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        InterleavingCoordinator(record: record)
    }
}
