import NavHostKit
import Observation

/// What the counter screen shows.
struct Counter: Codable, Equatable, Sendable {
    var count: Int
    var builtAgainst: String
}

/// The counter screen: loads the stored count on appear; `onTappedAdd(by:)` raises and stores it.
@MainActor
@Observable
final class CounterViewModel: ViewModel {
    // MARK: Public Types

    enum Intent: ViewModelIntent {
        case onTappedAdd(by: Int)

        static let names = ["onTappedAdd"]
    }

    // MARK: Public Properties

    private(set) var state: LoadingState<Counter> = .idle

    // MARK: Private Properties

    private let store: any KeyValueStore
    private let logger: FeatureLogger
    private let router: Router<CompatRoute>

    // MARK: Initialization

    init(store: any KeyValueStore, logger: FeatureLogger, router: Router<CompatRoute>) {
        self.store = store
        self.logger = logger
        self.router = router
    }

    // MARK: Public Functions

    func onAppear() async {
        state = .loading
        let count = (try? await store.load(Int.self, forKey: "count")) ?? 0
        state = .loaded(Counter(count: count, builtAgainst: "\(NavHostKitVersion.compiled)"))
    }

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onTappedAdd(let step):
            let count = (state.value?.count ?? 0) + step
            try await store.save(count, forKey: "count")
            logger.info("compat.added", metadata: ["count": "\(count)"])
            state = .loaded(Counter(count: count, builtAgainst: "\(NavHostKitVersion.compiled)"))
        }
    }
}
