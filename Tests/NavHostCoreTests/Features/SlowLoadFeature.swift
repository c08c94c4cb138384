import NavHostKit
import Observation

/// A screen whose `onAppear` load takes longer than a replay's 50 ms of quiet: it says `loading`, then waits on real
/// time, as a network or a busy machine would make it wait (not on `services.clock`, which a replay runs virtually),
/// and says `loaded`. No revision comes while it waits.
enum SlowLoadRoute: Route {
    static let namespace = "slow"
    case load
    /// Loads at once, then, while ``SlowLoadViewModel/lingers``, goes on waiting until the screen closes (as a
    /// screen whose telemetry call hangs on one machine and not on another).
    case linger
    /// Works for as long as the screen is open, as a screen that follows something (a feed, a store) does: it is
    /// never idle, and a call that comes finds it busy.
    case forever
    /// Works for as long as the screen is open too, and once a first answer came (after as long as a load, with no
    /// change meanwhile) opens a `slow.load` screen above itself.
    case follow
}

@MainActor
@Observable
final class SlowLoadViewModel: ViewModel {
    /// How long the load waits: four times the quiet after which a replay used to compare.
    static let loadTime: Duration = .milliseconds(200)

    /// Whether a `slow.linger` screen's work goes on after its load, until the screen closes.
    static var lingers = false

    private(set) var state = "idle"
    private let route: SlowLoadRoute
    private let router: Router<SlowLoadRoute>

    init(route: SlowLoadRoute, router: Router<SlowLoadRoute>) {
        self.route = route
        self.router = router
    }

    func onAppear() async {
        switch route {
        case .load:
            state = "loading"
            try? await Task.sleep(for: Self.loadTime)
            state = "loaded"
        case .linger:
            state = "loaded"
            if Self.lingers { try? await Task.sleep(for: .seconds(3600)) }
        case .forever:
            state = "following"
            try? await Task.sleep(for: .seconds(3600))
        case .follow:
            state = "following"
            try? await Task.sleep(for: Self.loadTime)
            guard !Task.isCancelled else { return }
            router.navigate(to: .load)
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}

@MainActor
final class SlowLoadCoordinator: Coordinator {
    func makeViewModel(for route: SlowLoadRoute, router: Router<SlowLoadRoute>) -> any ViewModel {
        SlowLoadViewModel(route: route, router: router)
    }
}

final class SlowLoadFeature: FeatureModule {
    let name = "SlowLoad"
    let screens = [
        ScreenDescriptor(route: "slow.load", viewModel: SlowLoadViewModel.self),
        ScreenDescriptor(route: "slow.linger", viewModel: SlowLoadViewModel.self),
        ScreenDescriptor(route: "slow.forever", viewModel: SlowLoadViewModel.self),
        ScreenDescriptor(route: "slow.follow", viewModel: SlowLoadViewModel.self),
    ]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { SlowLoadCoordinator() }
}
