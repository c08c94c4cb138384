public import NavHostKit

/// The Compat feature: one screen, `compat.counter`, whose count an intent raises and the feature's store keeps.
///
/// It touches what a newer SDK may grow behind a plugin's back: `HostServices` (a struct), `FeatureLogger`,
/// `LoadingState`, `Router`, `RouteRequest`, `JSONObject` and the `KeyValueStore` protocol.
public final class CompatFeature: FeatureModule {
    public let name = "Compat"
    public let screens = [
        ScreenDescriptor(
            route: "compat.counter",
            viewModel: CounterViewModel.self,
            summary: "A count that onTappedAdd raises."
        )
    ]

    public init() {}

    @MainActor
    public func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        CompatCoordinator(services: services)
    }
}

/// The composition root.
@MainActor
final class CompatCoordinator: Coordinator {
    private let services: HostServices

    init(services: HostServices) {
        self.services = services
    }

    func makeViewModel(for route: CompatRoute, router: Router<CompatRoute>) -> any ViewModel {
        switch route {
        case .counter: CounterViewModel(store: services.store, logger: services.logger, router: router)
        }
    }
}

/// The feature's routes.
enum CompatRoute: Route {
    static let namespace = "compat"

    case counter
}
