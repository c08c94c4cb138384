// A test fixture, not an example: a feature whose results depend on randomness and time, taken from `HostServices`
// as docs/recording.md asks, so that a recorded session of it replays identically.
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(DiceFeature())
}

/// One screen, `dice.main`: it rolls a die 500 ms after it appears, and `onTappedRoll` waits 300 ms, then rolls again.
final class DiceFeature: FeatureModule {
    let name = "Dice"
    let screens = [
        ScreenDescriptor(
            route: "dice.main",
            viewModel: DiceViewModel.self,
            summary: "Test fixture: dice rolled with the host's random numbers after a wait on the host's clock."
        )
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        DiceCoordinator(rollDieUseCase: RollDieUseCase(random: services.random, clock: services.clock))
    }
}

enum DiceRoute: Route {
    static let namespace = "dice"
    case main
}

@MainActor
final class DiceCoordinator: Coordinator {
    private let rollDieUseCase: any RollDieUseCaseProtocol

    init(rollDieUseCase: any RollDieUseCaseProtocol) {
        self.rollDieUseCase = rollDieUseCase
    }

    func makeViewModel(for route: DiceRoute, router: Router<DiceRoute>) -> any ViewModel {
        DiceViewModel(rollDieUseCase: rollDieUseCase)
    }
}

// MARK: - Domain

protocol RollDieUseCaseProtocol: Sendable {
    /// Waits `delay` on the host's clock, then rolls a six-sided die with the host's random numbers.
    func execute(after delay: Duration) async throws -> Int
}

struct RollDieUseCase: RollDieUseCaseProtocol {
    let random: any RandomSource
    let clock: any Clock<Duration>

    func execute(after delay: Duration) async throws -> Int {
        try await clock.sleep(for: delay)
        var generator = random.generator
        return Int.random(in: 1...6, using: &generator)
    }
}

// MARK: - Presentation

@MainActor
@Observable
final class DiceViewModel: ViewModel {
    enum Intent: ViewModelIntent {
        /// Waits 300 ms, then rolls again.
        case onTappedRoll

        static let names = ["onTappedRoll"]
    }

    struct State: Encodable, Equatable, Sendable {
        var rolls: [Int] = []
    }

    private let rollDieUseCase: any RollDieUseCaseProtocol

    private(set) var state = State()

    init(rollDieUseCase: any RollDieUseCaseProtocol) {
        self.rollDieUseCase = rollDieUseCase
    }

    /// Rolls once, after 500 ms: a call that comes sooner finds the screen still at work.
    func onAppear() async {
        await roll(after: .milliseconds(500))
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedRoll: await roll(after: .milliseconds(300))
        }
    }

    private func roll(after delay: Duration) async {
        guard let value = try? await rollDieUseCase.execute(after: delay) else { return }
        state.rolls.append(value)
    }
}
