import NavHostKit

/// The Home feature's composition root: wires the host's store, the session repository, the features the host says
/// are loaded and the use cases once, then builds the screen's ViewModel in one `switch` over ``HomeRoute``.
@MainActor
final class HomeCoordinator: Coordinator {

    // MARK: Private Properties

    private let getCurrentUserIDUseCase: any GetCurrentUserIDUseCaseProtocol
    private let observeHomeTilesUseCase: any ObserveHomeTilesUseCaseProtocol
    private let logger: FeatureLogger

    // MARK: Initialization

    /// Keeps the session in `services.store`, follows `services.optionalFeatures` and logs to `services.logger`.
    init(services: HostServices) {
        let repository = SessionRepositoryImpl(
            dataSource: SessionStoreDataSource(store: services.store),
            logger: services.logger
        )
        self.getCurrentUserIDUseCase = GetCurrentUserIDUseCase(repository: repository)
        self.observeHomeTilesUseCase = ObserveHomeTilesUseCase(
            repository: FeatureAvailabilityRepositoryImpl(optionalFeatures: services.optionalFeatures)
        )
        self.logger = services.logger
    }

    // MARK: Public Functions

    func makeViewModel(for route: HomeRoute, router: Router<HomeRoute>) -> any ViewModel {
        switch route {
        case .main:
            HomeViewModel(
                getCurrentUserIDUseCase: getCurrentUserIDUseCase,
                observeHomeTilesUseCase: observeHomeTilesUseCase,
                router: router,
                logger: logger
            )
        }
    }
}
