import NavHostKit

/// The Settings feature's composition root: wires the host's store, the repository and the use cases once, then
/// builds the screen's ViewModel in one `switch` over ``SettingsRoute``.
@MainActor
final class SettingsCoordinator: Coordinator {

    // MARK: Private Properties

    private let getPreferencesUseCase: any GetPreferencesUseCaseProtocol
    private let changePreferenceUseCase: any ChangePreferenceUseCaseProtocol
    private let resetPreferencesUseCase: any ResetPreferencesUseCaseProtocol
    private let logger: FeatureLogger

    // MARK: Initialization

    /// Keeps the preferences in `services.store` and logs to `services.logger`.
    init(services: HostServices) {
        let repository = PreferencesRepositoryImpl(
            dataSource: PreferencesStoreDataSource(store: services.store),
            logger: services.logger
        )
        self.getPreferencesUseCase = GetPreferencesUseCase(repository: repository)
        self.changePreferenceUseCase = ChangePreferenceUseCase(repository: repository)
        self.resetPreferencesUseCase = ResetPreferencesUseCase(repository: repository)
        self.logger = services.logger
    }

    // MARK: Public Functions

    func makeViewModel(for route: SettingsRoute, router: Router<SettingsRoute>) -> any ViewModel {
        switch route {
        case .main:
            SettingsViewModel(
                getPreferencesUseCase: getPreferencesUseCase,
                changePreferenceUseCase: changePreferenceUseCase,
                resetPreferencesUseCase: resetPreferencesUseCase,
                logger: logger
            )
        }
    }
}
