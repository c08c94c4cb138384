package import NavHostKit

/// The Home feature: the root screen, from which the catalog, the signed-in user's profile and the settings open.
///
/// It depends on the Products, UserProfile and Settings features only through their route IDs, and only optionally
/// (see `plugin.json`): it loads without them and shows a tile for each that is loaded.
final class HomeFeature: FeatureModule {
    let name = "Home"
    let screens = [
        ScreenDescriptor(
            route: "home.main",
            viewModel: HomeViewModel.self,
            summary: "The root screen: opens the catalog, your profile and the settings."
        )
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        HomeCoordinator(services: services)
    }
}

/// The module that the plugin's C entry point (in `Plugins/Home/Entry`) hands to the daemon.
package func makeHomeFeature() -> any FeatureModule {
    HomeFeature()
}
