import NavHostKit
import Observation

/// The root screen, `home.main`: the way into the other features.
///
/// It shows a tile for each feature it opens that is loaded — Products, UserProfile and Settings are optional
/// dependencies of Home — and keeps the tiles current while it is on the stack, as features are added and removed.
/// It opens the other features by route ID, without importing them. Its state on the wire:
///
/// ```json
/// {"tiles":["products","profile","settings"]}
/// ```
@MainActor
@Observable
final class HomeViewModel: ViewModel {

    /// What the root screen shows.
    struct State: Encodable, Equatable, Sendable {
        /// The features the user can open from here, in order.
        var tiles: [HomeTile]
    }

    /// What the user can do on the root screen.
    enum Intent: ViewModelIntent {
        /// Opens the catalog (`products.list`).
        case onTappedProducts
        /// Opens the signed-in user's profile (`profile.user`).
        case onTappedProfile
        /// Opens the settings (`settings.main`).
        case onTappedSettings

        static let names = ["onTappedProducts", "onTappedProfile", "onTappedSettings"]
    }

    // MARK: Private Properties

    @ObservationIgnored private var following: Task<Void, Never>?

    private let getCurrentUserIDUseCase: any GetCurrentUserIDUseCaseProtocol
    private let observeHomeTilesUseCase: any ObserveHomeTilesUseCaseProtocol
    private let router: Router<HomeRoute>
    private let logger: FeatureLogger

    // MARK: Public Properties

    private(set) var state: State

    // MARK: Initialization

    init(
        getCurrentUserIDUseCase: any GetCurrentUserIDUseCaseProtocol,
        observeHomeTilesUseCase: any ObserveHomeTilesUseCaseProtocol,
        router: Router<HomeRoute>,
        logger: FeatureLogger
    ) {
        self.getCurrentUserIDUseCase = getCurrentUserIDUseCase
        self.observeHomeTilesUseCase = observeHomeTilesUseCase
        self.router = router
        self.logger = logger
        // The tiles are known at once, so the screen's first state already shows them.
        self.state = State(tiles: observeHomeTilesUseCase.currentTiles())
    }

    isolated deinit {
        following?.cancel()
    }

    // MARK: Lifecycle

    func onAppear() async {
        guard following == nil else { return }
        let changes = observeHomeTilesUseCase.execute()
        following = Task { [weak self] in
            for await tiles in changes {
                // A set that arrived before onDisappear cancelled the task, but is taken after, is not shown.
                guard let self, !Task.isCancelled else { return }
                if tiles != self.state.tiles { self.state.tiles = tiles }
            }
        }
    }

    func onDisappear() {
        following?.cancel()
    }

    // MARK: Public Functions

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onTappedProducts: try onTappedProducts()
        case .onTappedProfile: try await onTappedProfile()
        case .onTappedSettings: try onTappedSettings()
        }
    }

    /// Opens the catalog.
    ///
    /// - Throws: ``HomeError/featureUnavailable(_:)`` when Products is not loaded (no tile shows it).
    func onTappedProducts() throws {
        try requireTile(.products)
        router.navigate(to: ExternalRoute.productList)
    }

    /// Opens the signed-in user's profile.
    ///
    /// - Throws: ``HomeError/featureUnavailable(_:)`` when UserProfile is not loaded (no tile shows it); the
    ///   session's error when it cannot be read (logged too): the intent fails rather than being answered as done
    ///   while staying put.
    func onTappedProfile() async throws {
        try requireTile(.profile)
        do {
            let userID = try await getCurrentUserIDUseCase.execute()
            router.navigate(to: ExternalRoute.userProfile(userID: userID))
        } catch {
            logger.error("home.profile.sessionUnavailable", metadata: ["error": "\(error)"])
            throw error
        }
    }

    /// Opens the preferences.
    ///
    /// - Throws: ``HomeError/featureUnavailable(_:)`` when Settings is not loaded (no tile shows it).
    func onTappedSettings() throws {
        try requireTile(.settings)
        router.navigate(to: ExternalRoute.settings)
    }
}

// MARK: - Private Functions

private extension HomeViewModel {
    func requireTile(_ tile: HomeTile) throws {
        guard state.tiles.contains(tile) else {
            logger.info("home.tile.unavailable", metadata: ["feature": "\(tile.feature)"])
            throw HomeError.featureUnavailable(tile.feature)
        }
    }
}
