import NavHostKit
import Observation

/// A screen whose `onAppear` load takes longer than a replay's 50 ms of quiet: it says `loading`, then waits on real
/// time, as a network or a busy machine would make it wait (not on `services.clock`, which a replay runs virtually),
/// and says `loaded`. No revision comes while it waits.
enum SlowLoadRoute: Route {
    static let namespace = "slow"
    case load
}

@MainActor
@Observable
final class SlowLoadViewModel: ViewModel {
    /// How long the load waits: four times the quiet after which a replay used to compare.
    static let loadTime: Duration = .milliseconds(200)

    private(set) var state = "idle"

    func onAppear() async {
        state = "loading"
        try? await Task.sleep(for: Self.loadTime)
        state = "loaded"
    }
}

@MainActor
final class SlowLoadCoordinator: Coordinator {
    func makeViewModel(for route: SlowLoadRoute, router: Router<SlowLoadRoute>) -> any ViewModel {
        SlowLoadViewModel()
    }
}

final class SlowLoadFeature: FeatureModule {
    let name = "SlowLoad"
    let screens = [ScreenDescriptor(route: "slow.load", viewModel: SlowLoadViewModel.self)]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { SlowLoadCoordinator() }
}
