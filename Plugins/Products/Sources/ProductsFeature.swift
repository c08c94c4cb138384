package import NavHostKit

/// The Products feature: the catalog and its product screens.
///
/// The catalog comes from `products.json`, which the plugin ships as a resource (see `plugin.json`). A product's
/// seller opens in the UserProfile feature, by route ID; UserProfile is an optional dependency, so without it the
/// catalog works and `onTappedSeller` stays put: the daemon refuses the navigation, logs it, and answers the intent
/// `IntentFailed` with `refusedNavigation` `RouteNotFound`.
final class ProductsFeature: FeatureModule {
    let name = "Products"
    let screens = [
        ScreenDescriptor(
            route: "products.list",
            viewModel: ProductsViewModel.self,
            summary: "The catalog's products, filtered by name."
        ),
        ScreenDescriptor(
            route: "products.detail",
            parameters: ["productID"],
            viewModel: ProductDetailViewModel.self,
            summary: "One product: description, price, availability and seller."
        ),
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        ProductsCoordinator(services: services)
    }
}

/// The module that the plugin's C entry point (in `Plugins/Products/Entry`) hands to the daemon.
package func makeProductsFeature() -> any FeatureModule {
    ProductsFeature()
}
