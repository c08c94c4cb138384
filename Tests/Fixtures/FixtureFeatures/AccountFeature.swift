public import NavHostKit
import Observation

/// Accounts: a profile reached from another feature by its route ID, which keeps an edited name across restarts,
/// and a stateless settings screen shown modally.
public final class AccountFeature: FeatureModule {
    public let name = "Account"
    public let screens = [
        ScreenDescriptor(route: "account.profile", parameters: ["userID"], viewModel: AccountProfileViewModel.self),
        ScreenDescriptor(route: "account.settings", viewModel: AccountSettingsViewModel.self),
    ]

    public init() {}

    @MainActor
    public func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        AccountCoordinator()
    }
}

enum AccountRoute: Route {
    static let namespace = "account"

    case profile(userID: String)
    case settings
}

@MainActor
final class AccountCoordinator: Coordinator {
    func makeViewModel(for route: AccountRoute, router: Router<AccountRoute>) -> any ViewModel {
        switch route {
        case .profile(let userID): AccountProfileViewModel(userID: userID, router: router)
        case .settings: AccountSettingsViewModel(router: router)
        }
    }
}

// MARK: - Profile

@MainActor
@Observable
final class AccountProfileViewModel: RestorableViewModel {
    struct State: Encodable, Equatable {
        var userID: String
        var displayName: String
        var appeared = 0
    }

    struct Saved: Codable {
        var displayName: String
    }

    private(set) var state: State
    private let router: Router<AccountRoute>

    init(userID: String, router: Router<AccountRoute>) {
        self.state = State(userID: userID, displayName: userID)
        self.router = router
    }

    var restorableState: Saved { Saved(displayName: state.displayName) }

    func restore(from saved: Saved) {
        state.displayName = saved.displayName
    }

    func onAppear() async {
        await Task.yield()
        state.appeared += 1
    }

    enum Intent: ViewModelIntent {
        case onChangedName(name: String)
        case onTappedSettings
        case onTappedSignOut

        static let names = ["onChangedName", "onTappedSettings", "onTappedSignOut"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onChangedName(let name): state.displayName = name
        case .onTappedSettings: router.present(.settings)
        case .onTappedSignOut: router.popToRoot()
        }
    }
}

// MARK: - Settings (modal, stateless)

@MainActor
@Observable
final class AccountSettingsViewModel: ViewModel {
    private let router: Router<AccountRoute>

    init(router: Router<AccountRoute>) {
        self.router = router
    }

    enum Intent: ViewModelIntent {
        case onTappedDone
        static let names = ["onTappedDone"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedDone: router.dismiss()
        }
    }
}
