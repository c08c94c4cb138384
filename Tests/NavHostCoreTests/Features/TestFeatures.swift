import NavHostKit
import Observation

/// The catalog feature's composition root: one switch, as the seeds write `Route.view()`.
@MainActor
final class CatalogCoordinator: Coordinator {
    let getItemsUseCase: any GetItemsUseCaseProtocol
    let saveItemUseCase: any SaveItemUseCaseProtocol
    let lifecycle: LifecycleRecorder

    init(
        getItemsUseCase: any GetItemsUseCaseProtocol,
        saveItemUseCase: any SaveItemUseCaseProtocol,
        lifecycle: LifecycleRecorder
    ) {
        self.getItemsUseCase = getItemsUseCase
        self.saveItemUseCase = saveItemUseCase
        self.lifecycle = lifecycle
    }

    func makeViewModel(for route: CatalogRoute, router: Router<CatalogRoute>) -> any ViewModel {
        switch route {
        case .list:
            CatalogListViewModel(getItemsUseCase: getItemsUseCase, router: router, lifecycle: lifecycle)
        case .detail(let itemID):
            CatalogDetailViewModel(itemID: itemID, router: router, lifecycle: lifecycle)
        case .editor:
            CatalogEditorViewModel(saveItemUseCase: saveItemUseCase, router: router)
        }
    }
}

final class CatalogFeature: FeatureModule, @unchecked Sendable {
    let name = "Catalog"
    let screens = [
        ScreenDescriptor(route: "catalog.list", viewModel: CatalogListViewModel.self),
        ScreenDescriptor(route: "catalog.detail", parameters: ["itemID"], viewModel: CatalogDetailViewModel.self),
        ScreenDescriptor(route: "catalog.editor", viewModel: CatalogEditorViewModel.self),
    ]

    let getItems: any GetItemsUseCaseProtocol
    let saveItem: any SaveItemUseCaseProtocol
    @MainActor let lifecycle = LifecycleRecorder()

    init(
        getItems: any GetItemsUseCaseProtocol = StubGetItemsUseCase(items: [.lamp, .desk]),
        saveItem: any SaveItemUseCaseProtocol = ControlledSaveItemUseCase()
    ) {
        self.getItems = getItems
        self.saveItem = saveItem
    }

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        CatalogCoordinator(getItemsUseCase: getItems, saveItemUseCase: saveItem, lifecycle: lifecycle)
    }
}

// MARK: - Profile: a second feature, reached only through a RouteRequest

enum ProfileRoute: Route {
    static let namespace = "profile"
    case user(userID: String)
}

@MainActor
@Observable
final class ProfileViewModel: ViewModel {
    private(set) var state: LoadingState<String>
    init(userID: String) { state = .loaded(userID) }
}

@MainActor
final class ProfileCoordinator: Coordinator {
    func makeViewModel(for route: ProfileRoute, router: Router<ProfileRoute>) -> any ViewModel {
        switch route {
        case .user(let userID): ProfileViewModel(userID: userID)
        }
    }
}

final class ProfileFeature: FeatureModule {
    let name = "Profile"
    let screens = [ScreenDescriptor(route: "profile.user", parameters: ["userID"], viewModel: ProfileViewModel.self)]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { ProfileCoordinator() }
}

// MARK: - Stateless home (seed 002)

enum HomeRoute: Route {
    static let namespace = "home"
    case main
}

@MainActor
@Observable
final class HomeViewModel: ViewModel {
    private let router: Router<HomeRoute>
    init(router: Router<HomeRoute>) { self.router = router }

    enum Intent: ViewModelIntent {
        case onTappedCatalog
        static let names = ["onTappedCatalog"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedCatalog: router.navigate(to: RouteRequest(id: "catalog.list"))
        }
    }
}

@MainActor
final class HomeCoordinator: Coordinator {
    func makeViewModel(for route: HomeRoute, router: Router<HomeRoute>) -> any ViewModel {
        HomeViewModel(router: router)
    }
}

final class HomeFeature: FeatureModule {
    let name = "Home"
    let screens = [ScreenDescriptor(route: "home.main", viewModel: HomeViewModel.self)]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { HomeCoordinator() }
}

/// A feature whose composition root throws, to test that registration reports it.
final class BrokenFeature: FeatureModule {
    struct Failure: Error {}
    let name = "Broken"
    let screens = [ScreenDescriptor(route: "broken.main")]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { throw Failure() }
}
