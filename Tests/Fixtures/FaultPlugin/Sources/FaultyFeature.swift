// A test fixture, not an example: a plugin that does what no feature may do to the daemon — block the main thread,
// spin on it, trap — so that the daemon's fault guard can be tested against a real `.so` (docs/robustness.md,
// "Plugin faults"). Its composition root misbehaves when NAVHOST_FAULTY_INIT says so: `hang` or `trap`; its
// coordinator traps when asked for a route while NAVHOST_FAULTY_ROUTE is set (for navhost-plugin-tool check).
import Glibc
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(FaultyFeature())
}

/// One screen, `faulty.main`, whose intents take the main thread down in three ways; `onTappedCount` behaves, and
/// `onTappedHold` holds the main thread for a while.
final class FaultyFeature: FeatureModule {
    let name = "Faulty"
    let screens = [
        ScreenDescriptor(
            route: "faulty.main",
            viewModel: FaultyViewModel.self,
            summary: "Test fixture: intents that block, spin or trap on the main thread."
        )
    ]

    init() {}

    @MainActor
    func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        switch getenv("NAVHOST_FAULTY_INIT").map({ String(cString: $0) }) {
        case "hang": MainThreadFault.block()
        case "trap": MainThreadFault.trap()
        default: break
        }
        return FaultyCoordinator()
    }
}

enum FaultyRoute: Route {
    static let namespace = "faulty"
    case main
}

@MainActor
final class FaultyCoordinator: Coordinator {
    func makeViewModel(for route: FaultyRoute, router: Router<FaultyRoute>) -> any ViewModel {
        if getenv("NAVHOST_FAULTY_ROUTE") != nil { MainThreadFault.trap() }
        return FaultyViewModel()
    }
}

/// The three ways to take the main thread down.
enum MainThreadFault {
    /// Blocks in a system call that never returns on its own.
    static func block() {
        while true { sleep(3600) }
    }

    /// Spins without ever yielding.
    static func spin() {
        var turns: UInt64 = 0
        while true {
            turns &+= 1
            if turns == 0 { print("never") }
        }
    }

    /// Holds the main thread for `milliseconds` by the monotonic clock, then lets go: a stall shorter than a limit.
    static func hold(milliseconds: Int64) {
        let end = monotonicMilliseconds() + milliseconds
        while case let left = end - monotonicMilliseconds(), left > 0 {
            usleep(useconds_t(min(left, 10) * 1_000))
        }
    }

    private static func monotonicMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Traps, as a failed precondition or a force-unwrapped nil does.
    static func trap() -> Never {
        fatalError("Faulty: a precondition failed")
    }
}

@MainActor
@Observable
final class FaultyViewModel: ViewModel {
    enum Intent: ViewModelIntent {
        case onTappedBlock
        case onTappedSpin
        case onTappedTrap
        case onTappedCount
        /// Holds the main thread for 0.85 s, under the tests' 1 s stall limit.
        case onTappedHold

        static let names = ["onTappedBlock", "onTappedSpin", "onTappedTrap", "onTappedCount", "onTappedHold"]
    }

    struct State: Encodable, Equatable, Sendable {
        var count = 0
    }

    private(set) var state = State()

    init() {}

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedBlock: MainThreadFault.block()
        case .onTappedSpin: MainThreadFault.spin()
        case .onTappedTrap: MainThreadFault.trap()
        case .onTappedCount: state.count += 1
        case .onTappedHold:
            MainThreadFault.hold(milliseconds: 850)
            state.count += 1
        }
    }
}
