// A test fixture, not an example: a plugin whose use case never returns, so that the daemon's intent time limit can
// be tested against a real `.so`. The example plugins stay as the seeds teach them; test hooks live here.
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(StallFeature())
}

/// One screen, `stall.main`: `onTappedWait` runs a use case that never returns; `onTappedCount` answers at once.
final class StallFeature: FeatureModule {
    let name = "Stall"
    let screens = [
        ScreenDescriptor(
            route: "stall.main",
            viewModel: StallViewModel.self,
            summary: "Test fixture: an intent whose use case never returns, and one that counts."
        )
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        StallCoordinator()
    }
}

enum StallRoute: Route {
    static let namespace = "stall"
    case main
}

@MainActor
final class StallCoordinator: Coordinator {
    func makeViewModel(for route: StallRoute, router: Router<StallRoute>) -> any ViewModel {
        StallViewModel(waitForeverUseCase: WaitForeverUseCase())
    }
}

/// A use case that never returns, and ignores cancellation: the worst a feature can do to an intent.
protocol WaitForeverUseCaseProtocol: Sendable {
    func execute() async
}

struct WaitForeverUseCase: WaitForeverUseCaseProtocol {
    func execute() async {
        // Nothing ever resumes this continuation, and cancellation does not reach it.
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }
}

@MainActor
@Observable
final class StallViewModel: ViewModel {
    enum Intent: ViewModelIntent {
        /// Starts the use case that never returns; the screen shows `waiting` meanwhile.
        case onTappedWait
        /// Adds one to `count` and answers at once.
        case onTappedCount

        static let names = ["onTappedWait", "onTappedCount"]
    }

    struct State: Encodable, Equatable, Sendable {
        var waiting = 0
        var count = 0
    }

    private let waitForeverUseCase: any WaitForeverUseCaseProtocol

    private(set) var state = State()

    init(waitForeverUseCase: any WaitForeverUseCaseProtocol) {
        self.waitForeverUseCase = waitForeverUseCase
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedWait:
            state.waiting += 1
            await waitForeverUseCase.execute()
        case .onTappedCount:
            state.count += 1
        }
    }
}
