import NavHostKit

/// The UserProfile feature's composition root: wires the host's store, the repository and the use cases once, then
/// builds each screen's ViewModel in one `switch` over ``ProfileRoute``.
///
/// Both screens share one repository, so a profile saved on the edit screen reaches the profile screen below it.
@MainActor
final class UserProfileCoordinator: Coordinator {

    // MARK: Private Properties

    private let getUserProfileUseCase: any GetUserProfileUseCaseProtocol
    private let observeUserProfileUseCase: any ObserveUserProfileUseCaseProtocol
    private let updateUserProfileUseCase: any UpdateUserProfileUseCaseProtocol
    private let logger: FeatureLogger

    // MARK: Initialization

    /// Keeps profiles in `services.store` and logs to `services.logger`.
    init(services: HostServices) {
        let repository = UserProfileRepositoryImpl(
            dataSource: UserProfileStoreDataSource(store: services.store),
            logger: services.logger
        )
        self.getUserProfileUseCase = GetUserProfileUseCase(repository: repository)
        self.observeUserProfileUseCase = ObserveUserProfileUseCase(repository: repository)
        self.updateUserProfileUseCase = UpdateUserProfileUseCase(repository: repository)
        self.logger = services.logger
    }

    // MARK: Public Functions

    func makeViewModel(for route: ProfileRoute, router: Router<ProfileRoute>) -> any ViewModel {
        switch route {
        case .user(let userID):
            UserProfileViewModel(
                userID: userID,
                getUserProfileUseCase: getUserProfileUseCase,
                observeUserProfileUseCase: observeUserProfileUseCase,
                router: router,
                logger: logger
            )
        case .edit(let userID):
            EditProfileViewModel(
                userID: userID,
                getUserProfileUseCase: getUserProfileUseCase,
                updateUserProfileUseCase: updateUserProfileUseCase,
                router: router,
                logger: logger
            )
        }
    }
}
