// A test fixture, not an example: one screen type whose intents call each of the Router's operations, so that a
// test can send an intent that moves the stack in any way a ViewModel may (docs/durability.md: a Send whose intent
// changes the stack is durable before its reply).
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(HopsFeature())
}

/// `hops.base`, `hops.page(name:)` and `hops.sheet`, all shown by ``HopsViewModel``.
final class HopsFeature: FeatureModule {
    let name = "Hops"
    let screens = [
        ScreenDescriptor(
            route: "hops.base",
            viewModel: HopsViewModel.self,
            summary: "Test fixture: a base screen whose intents push, present, replace and pop."
        ),
        ScreenDescriptor(
            route: "hops.page",
            parameters: ["name"],
            viewModel: HopsViewModel.self,
            summary: "Test fixture: a named page with the same intents."
        ),
        ScreenDescriptor(
            route: "hops.sheet",
            viewModel: HopsViewModel.self,
            summary: "Test fixture: a screen to present, with the same intents."
        ),
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        HopsCoordinator()
    }
}

/// The fixture's routes: a base, pages told apart by their name, and a sheet to present.
enum HopsRoute: Route {
    static let namespace = "hops"
    case base
    case page(name: String)
    case sheet
}

/// Makes a ``HopsViewModel`` for every route, with the screen's router.
@MainActor
final class HopsCoordinator: Coordinator {
    func makeViewModel(for route: HopsRoute, router: Router<HopsRoute>) -> any ViewModel {
        HopsViewModel(router: router)
    }
}

// MARK: - Presentation

/// The one ViewModel of the fixture's screens: each intent calls one of the Router's operations.
@MainActor
@Observable
final class HopsViewModel: ViewModel {
    enum Intent: ViewModelIntent {
        /// `navigate(to: .page(name:))`.
        case onTappedPage(name: String)
        /// `present(.sheet)`.
        case onTappedSheet
        /// `dismiss()`.
        case onTappedDismiss
        /// `replace(with: [.base, .page(name:)])`.
        case onTappedReplace(name: String)
        /// `popTo(.page(name:))`.
        case onTappedBackTo(name: String)
        /// `popToRoot()`.
        case onTappedHome
        /// `pop()`: the screen takes itself off the stack.
        case onTappedBack

        static let names = [
            "onTappedPage", "onTappedSheet", "onTappedDismiss", "onTappedReplace", "onTappedBackTo", "onTappedHome",
            "onTappedBack",
        ]
    }

    struct State: Encodable, Equatable, Sendable {
        /// Whether the Router took the last intent's operation.
        var lastAccepted = true
    }

    private let router: Router<HopsRoute>

    private(set) var state = State()

    init(router: Router<HopsRoute>) {
        self.router = router
    }

    /// Calls the Router's operation the intent names, and keeps whether the Router took it.
    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedPage(let name): state.lastAccepted = router.navigate(to: .page(name: name))
        case .onTappedSheet: state.lastAccepted = router.present(.sheet)
        case .onTappedDismiss: state.lastAccepted = router.dismiss()
        case .onTappedReplace(let name): state.lastAccepted = router.replace(with: [.base, .page(name: name)])
        case .onTappedBackTo(let name): state.lastAccepted = router.popTo(.page(name: name))
        case .onTappedHome: state.lastAccepted = router.popToRoot()
        case .onTappedBack: state.lastAccepted = router.pop()
        }
    }
}
