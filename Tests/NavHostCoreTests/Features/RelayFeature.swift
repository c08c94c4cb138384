import NavHostKit
import Observation

/// Screens that open others from their ViewModels, to test who may close what: `relay.step` opens another step, or
/// pops; `relay.forward` opens a step from its own `onAppear`, before the command that pushed it has returned;
/// `relay.gone` pops itself from its `onAppear`.
enum RelayRoute: Route {
    static let namespace = "relay"
    case step
    case forward
    case gone
}

@MainActor
@Observable
final class RelayStepViewModel: ViewModel {
    /// The Router of the latest step made: what work that outlives its ViewModel (a detached task) would hold.
    static var latestRouter: Router<RelayRoute>?

    private let router: Router<RelayRoute>
    init(router: Router<RelayRoute>) {
        self.router = router
        Self.latestRouter = router
    }

    enum Intent: ViewModelIntent {
        case onTappedStep
        case onTappedForward
        case onTappedGone
        case onTappedPop
        static let names = ["onTappedStep", "onTappedForward", "onTappedGone", "onTappedPop"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedStep: router.navigate(to: .step)
        case .onTappedForward: router.navigate(to: .forward)
        case .onTappedGone: router.navigate(to: .gone)
        case .onTappedPop: router.pop()
        }
    }
}

@MainActor
@Observable
final class RelayForwardViewModel: ViewModel {
    private let router: Router<RelayRoute>
    init(router: Router<RelayRoute>) { self.router = router }

    enum Intent: ViewModelIntent {
        case onTappedPop
        static let names = ["onTappedPop"]
    }

    func onAppear() async {
        router.navigate(to: .step)
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedPop: router.pop()
        }
    }
}

@MainActor
@Observable
final class RelayGoneViewModel: ViewModel {
    private let router: Router<RelayRoute>
    init(router: Router<RelayRoute>) { self.router = router }

    func onAppear() async {
        router.pop()
    }
}

@MainActor
final class RelayCoordinator: Coordinator {
    func makeViewModel(for route: RelayRoute, router: Router<RelayRoute>) -> any ViewModel {
        switch route {
        case .step: RelayStepViewModel(router: router)
        case .forward: RelayForwardViewModel(router: router)
        case .gone: RelayGoneViewModel(router: router)
        }
    }
}

final class RelayFeature: FeatureModule {
    let name = "Relay"
    let screens = [
        ScreenDescriptor(route: "relay.step", viewModel: RelayStepViewModel.self),
        ScreenDescriptor(route: "relay.forward", viewModel: RelayForwardViewModel.self),
        ScreenDescriptor(route: "relay.gone", viewModel: RelayGoneViewModel.self),
    ]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { RelayCoordinator() }
}
