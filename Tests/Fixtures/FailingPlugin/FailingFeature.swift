// A plugin whose composition root throws: the registry must quarantine it as `initialisationFailed` and go on
// loading the others.
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(FailingFeature())
}

/// Offers one route, but cannot build its composition root: its configuration is "missing".
final class FailingFeature: FeatureModule {
    let name = "Failing"
    let screens = [ScreenDescriptor(route: "failing.main", viewModel: FailingViewModel.self)]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        throw ConfigurationMissing()
    }
}

/// What the failing feature throws.
struct ConfigurationMissing: Error, CustomStringConvertible {
    var description: String { "the failing fixture's configuration is missing" }
}

@MainActor
@Observable
final class FailingViewModel: ViewModel {}
