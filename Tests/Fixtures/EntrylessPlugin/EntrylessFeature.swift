// A feature built into a shared library without its entry target: the library is a real Swift plugin image but
// exports no `navhost_feature_entry`, so the registry must quarantine it as `missingEntrySymbol`.
import NavHostKit
import Observation

/// A complete feature module that nothing hands to the daemon.
final class EntrylessFeature: FeatureModule {
    let name = "Entryless"
    let screens = [ScreenDescriptor(route: "entryless.main", viewModel: EntrylessViewModel.self)]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        EntrylessCoordinator()
    }
}

enum EntrylessRoute: Route {
    static let namespace = "entryless"
    case main
}

@MainActor
final class EntrylessCoordinator: Coordinator {
    func makeViewModel(for route: EntrylessRoute, router: Router<EntrylessRoute>) -> any ViewModel {
        EntrylessViewModel()
    }
}

@MainActor
@Observable
final class EntrylessViewModel: ViewModel {}
