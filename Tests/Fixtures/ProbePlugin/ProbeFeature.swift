// The smallest plugin: proves that a plugin built by this package shares the daemon's one copy of NavHostKit.
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(ProbeFeature())
}

/// Bumps the SDK's probe counter from the plugin's side, so the host can see it change.
@_cdecl("navhost_probe_increment")
public func navhostProbeIncrement() -> Int {
    SDKImageProbe.increment()
}

/// Reads the SDK's probe counter from the plugin's side.
@_cdecl("navhost_probe_value")
public func navhostProbeValue() -> Int {
    SDKImageProbe.value
}

final class ProbeFeature: FeatureModule {
    let name = "Probe"
    let screens = [ScreenDescriptor(route: "probe.main", viewModel: ProbeViewModel.self)]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        ProbeCoordinator()
    }
}

enum ProbeRoute: Route {
    static let namespace = "probe"
    case main
}

@MainActor
final class ProbeCoordinator: Coordinator {
    func makeViewModel(for route: ProbeRoute, router: Router<ProbeRoute>) -> any ViewModel {
        ProbeViewModel()
    }
}

@MainActor
@Observable
final class ProbeViewModel: ViewModel {}
