import NavHostKit

/// The Home feature's composition root: wires the host's store, the session repository and the use case once,
/// then builds the screen's ViewModel in one `switch` over ``HomeRoute``.
@MainActor
final class HomeCoordinator: Coordinator {

    // MARK: Private Properties

    private let getCurrentUserIDUseCase: any GetCurrentUserIDUseCaseProtocol
    private let logger: FeatureLogger

    // MARK: Initialization

    /// Keeps the session in `services.store` and logs to `services.logger`.
    init(services: HostServices) {
        let repository = SessionRepositoryImpl(
            dataSource: SessionStoreDataSource(store: services.store),
            logger: services.logger
        )
        self.getCurrentUserIDUseCase = GetCurrentUserIDUseCase(repository: repository)
        self.logger = services.logger
    }

    // MARK: Public Functions

    func makeViewModel(for route: HomeRoute, router: Router<HomeRoute>) -> any ViewModel {
        switch route {
        case .main:
            HomeViewModel(getCurrentUserIDUseCase: getCurrentUserIDUseCase, router: router, logger: logger)
        }
    }
}
