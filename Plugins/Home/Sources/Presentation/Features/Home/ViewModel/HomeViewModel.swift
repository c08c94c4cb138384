import NavHostKit

/// The root screen, `home.main`: the way into the other features.
///
/// A stateless ViewModel, as seed 002 teaches for a screen that only navigates: it has no `state` of its own (its
/// state is ``NoState``, `{}` on the wire), so it needs no `@Observable`. It opens the other features by route ID,
/// without importing them.
@MainActor
final class HomeViewModel: ViewModel {

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

    private let getCurrentUserIDUseCase: any GetCurrentUserIDUseCaseProtocol
    private let router: Router<HomeRoute>
    private let logger: FeatureLogger

    // MARK: Initialization

    init(getCurrentUserIDUseCase: any GetCurrentUserIDUseCaseProtocol, router: Router<HomeRoute>, logger: FeatureLogger)
    {
        self.getCurrentUserIDUseCase = getCurrentUserIDUseCase
        self.router = router
        self.logger = logger
    }

    // MARK: Public Functions

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedProducts: onTappedProducts()
        case .onTappedProfile: await onTappedProfile()
        case .onTappedSettings: onTappedSettings()
        }
    }

    func onTappedProducts() {
        router.navigate(to: ExternalRoute.productList)
    }

    /// Opens the signed-in user's profile; stays put, and logs why, when the session cannot be read.
    func onTappedProfile() async {
        do {
            let userID = try await getCurrentUserIDUseCase.execute()
            router.navigate(to: ExternalRoute.userProfile(userID: userID))
        } catch {
            logger.error("home.profile.sessionUnavailable", metadata: ["error": "\(error)"])
        }
    }

    func onTappedSettings() {
        router.navigate(to: ExternalRoute.settings)
    }
}
