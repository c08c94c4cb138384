// A plugin that offers a route the Products plugin already offers, `products.list`: the registry must quarantine
// it as `routeConflict` (from its manifest, before its code is loaded) and keep serving Products.
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(BargainsFeature())
}

/// Bargains: its own screen, and a catalog screen under the Products feature's route ID.
final class BargainsFeature: FeatureModule {
    let name = "Bargains"
    let screens = [
        ScreenDescriptor(route: "bargains.main", viewModel: BargainsViewModel.self),
        ScreenDescriptor(route: "products.list", viewModel: BargainsViewModel.self),
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        BargainsCoordinator()
    }
}

@MainActor
final class BargainsCoordinator: FeatureCoordinator {
    func makeViewModel(
        for request: RouteRequest,
        navigation: any NavigationHandler,
        screen: ScreenID
    ) throws -> any ViewModel {
        BargainsViewModel()
    }
}

@MainActor
@Observable
final class BargainsViewModel: ViewModel {}
