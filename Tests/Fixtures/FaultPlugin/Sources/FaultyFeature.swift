// A test fixture, not an example: a plugin that does what no feature may do to the daemon — block the main thread,
// spin on it, trap — so that the daemon's fault guard can be tested against a real `.so` (docs/robustness.md,
// "Plugin faults"). Its composition root misbehaves when NAVHOST_FAULTY_INIT says so: `hang` or `trap`, or
// `removeResource`, which deletes its resource `faulty.txt` while the daemon loads it (after the daemon found it
// there, for the watcher's check of a serving folder); its coordinator traps when asked for a route while NAVHOST_FAULTY_ROUTE is set (for navhost-plugin-tool check). Some of
// its intents fail, or run past the intent time limit, after changing what an error reply must keep: a navigation,
// restorable state, the feature's store (the kill -9 tests).
import Glibc
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(FaultyFeature())
}

/// One screen, `faulty.main`, whose intents take the main thread down in three ways; `onTappedCount` behaves,
/// `onTappedHold` and `onTappedHoldInSlices` hold the main thread for a while, and `onTappedOpenThenFail`,
/// `onTappedOpenThenFailLater` (after a suspension) and `onChangedNoteThenFail` throw after opening another
/// `faulty.main` or changing the restorable note, and the `Refuse` ones throw the SDK's `IntentError` after it, as
/// if the intent had been refused before it ran; the intents that end in `Hang` do the same and then wait past any
/// time limit, and the `Saved` ones write `saved` to the feature's store, slowly.
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
        case "removeResource": unlink("\(services.resourceDirectory)/faulty.txt")
        default: break
        }
        return FaultyCoordinator(store: services.store)
    }
}

enum FaultyRoute: Route {
    static let namespace = "faulty"
    case main
}

@MainActor
final class FaultyCoordinator: Coordinator {
    private let store: any KeyValueStore

    init(store: any KeyValueStore) {
        self.store = store
    }

    func makeViewModel(for route: FaultyRoute, router: Router<FaultyRoute>) -> any ViewModel {
        if getenv("NAVHOST_FAULTY_ROUTE") != nil { MainThreadFault.trap() }
        return FaultyViewModel(router: router, store: store)
    }
}

/// The three ways to take the main thread down, and two holds shorter than a stall.
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

    /// Holds the main thread in `slices` sleeps of 10 ms, saying so on standard error first (for a test that acts
    /// during the hold): unlike ``hold(milliseconds:)``, a stop of the whole daemon lengthens it.
    static func hold(slices: Int) {
        let line = "Faulty: holding the main thread\n".utf8CString
        _ = line.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        for _ in 0..<slices { usleep(10_000) }
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
final class FaultyViewModel: RestorableViewModel {
    enum Intent: ViewModelIntent {
        case onTappedBlock
        case onTappedSpin
        case onTappedTrap
        case onTappedCount
        /// Holds the main thread for 0.85 s, under the tests' 1 s stall limit.
        case onTappedHold
        /// Holds the main thread in 60 sleeps of 10 ms: 0.6 s of the daemon's running, however long it is stopped.
        case onTappedHoldInSlices
        /// Opens another `faulty.main` above this one, then fails.
        case onTappedOpenThenFail
        /// After a suspension, opens another `faulty.main` above this one, then fails.
        case onTappedOpenThenFailLater
        /// Sets the restorable note, then fails.
        case onChangedNoteThenFail(text: String)
        /// Opens another `faulty.main` above this one, then throws the SDK's `IntentError.invalidArguments` itself.
        case onTappedOpenThenRefuse
        /// Sets the restorable note, then throws the SDK's `IntentError.unknownIntent` itself.
        case onChangedNoteThenRefuse(text: String)
        /// Opens another `faulty.main` above this one, then waits an hour (until cancelled).
        case onTappedOpenThenHang
        /// Sets the restorable note, then waits an hour (until cancelled).
        case onChangedNoteThenHang(text: String)
        /// Writes `text` as `saved` to the store with a write that takes half a second, and waits for it: under a
        /// shorter time limit, the time runs out with the write under way.
        case onChangedSavedSlowly(text: String)
        /// Sets the restorable note to `text`, then writes `text` as `saved` in a write that takes a second: a client
        /// that sees the note knows the write is under way (it began in the stretch that set the note), and has a
        /// second to close the screen under it.
        case onChangedNoteThenSavedInASecond(text: String)
        /// Sets the restorable note to `text`, then writes `text` as `saved` in a write whose change sleeps an hour on
        /// the store's thread first: a write that does not end while the daemon runs.
        case onChangedNoteThenSavedInAnHour(text: String)
        /// Makes the restorable state arrays nested `levels` deep (``NestedArrays``).
        case onChangedNesting(levels: Int)
        /// Writes arrays nested `levels` deep as `nested` to the store, and waits for the write.
        case onChangedNestedSaved(levels: Int)

        static let names = [
            "onTappedBlock", "onTappedSpin", "onTappedTrap", "onTappedCount", "onTappedHold", "onTappedHoldInSlices",
            "onTappedOpenThenFail", "onTappedOpenThenFailLater", "onChangedNoteThenFail", "onTappedOpenThenRefuse",
            "onChangedNoteThenRefuse", "onTappedOpenThenHang",
            "onChangedNoteThenHang", "onChangedSavedSlowly", "onChangedNoteThenSavedInASecond",
            "onChangedNoteThenSavedInAnHour", "onChangedNesting", "onChangedNestedSaved",
        ]
    }

    struct State: Encodable, Equatable, Sendable {
        var count = 0
        var note = ""
        var nesting = 0
    }

    struct Saved: Codable, Equatable {
        var note: String
        var nesting: NestedArrays?
    }

    /// Why an intent that fails on purpose failed.
    struct FailedOnPurpose: Error {}

    private(set) var state = State()
    private let router: Router<FaultyRoute>
    private let store: any KeyValueStore

    init(router: Router<FaultyRoute>, store: any KeyValueStore) {
        self.router = router
        self.store = store
    }

    var restorableState: Saved {
        Saved(note: state.note, nesting: state.nesting > 0 ? NestedArrays(levels: state.nesting) : nil)
    }

    func restore(from saved: Saved) {
        state.note = saved.note
        state.nesting = saved.nesting?.levels ?? 0
    }

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onTappedBlock: MainThreadFault.block()
        case .onTappedSpin: MainThreadFault.spin()
        case .onTappedTrap: MainThreadFault.trap()
        case .onTappedCount: state.count += 1
        case .onTappedHold:
            MainThreadFault.hold(milliseconds: 850)
            state.count += 1
        case .onTappedHoldInSlices:
            MainThreadFault.hold(slices: 60)
            state.count += 1
        case .onTappedOpenThenFail:
            _ = router.navigate(to: .main)
            throw FailedOnPurpose()
        case .onTappedOpenThenFailLater:
            try await Task.sleep(for: .milliseconds(5))
            _ = router.navigate(to: .main)
            throw FailedOnPurpose()
        case .onChangedNoteThenFail(let text):
            state.note = text
            throw FailedOnPurpose()
        case .onTappedOpenThenRefuse:
            _ = router.navigate(to: .main)
            throw IntentError.invalidArguments(
                intent: "onTappedOpenThenRefuse",
                reason: "refused after it opened a screen"
            )
        case .onChangedNoteThenRefuse(let text):
            state.note = text
            throw IntentError.unknownIntent("onChangedNoteThenRefuse")
        case .onTappedOpenThenHang:
            _ = router.navigate(to: .main)
            try await Task.sleep(for: .seconds(3600))
        case .onChangedNoteThenHang(let text):
            state.note = text
            try await Task.sleep(for: .seconds(3600))
        case .onChangedSavedSlowly(let text):
            try await Self.saveSlowly(text, to: store)
        case .onChangedNoteThenSavedInASecond(let text):
            state.note = text
            _ = try await store.update(String.self, forKey: "saved", Self.setting(text, after: 1_000_000))
        case .onChangedNoteThenSavedInAnHour(let text):
            state.note = text
            _ = try await store.update(String.self, forKey: "saved", Self.setting(text, after: 3_600_000_000))
        case .onChangedNesting(let levels):
            state.nesting = levels
        case .onChangedNestedSaved(let levels):
            try await store.save(NestedArrays(levels: levels), forKey: "nested")
        }
    }

    /// Writes `text` as `saved`, in a write that takes half a second.
    private static func saveSlowly(_ text: String, to store: any KeyValueStore) async throws {
        _ = try await store.update(String.self, forKey: "saved", slowly(setting: text))
    }

    /// The change of a write that first sleeps `microseconds` on the store's own thread, then sets `text`.
    private nonisolated static func setting(
        _ text: String,
        after microseconds: UInt64
    ) -> @Sendable (inout String?) -> Void {
        { saved in
            // `usleep` takes at most a second's worth on some systems: sleep whole seconds first.
            sleep(UInt32(microseconds / 1_000_000))
            usleep(UInt32(microseconds % 1_000_000))
            saved = text
        }
    }

    /// The change of a slow write: half a second's sleep, on the store's own thread, then `text`.
    private nonisolated static func slowly(setting text: String) -> @Sendable (inout String?) -> Void {
        { saved in
            usleep(500_000)
            saved = text
        }
    }
}

/// Arrays nested `levels` deep, `[[[]]]` for 3: a restorable state, or a stored value, as deep as a test asks.
struct NestedArrays: Codable, Equatable, Sendable {
    var levels: Int

    init(levels: Int) {
        self.levels = max(1, levels)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        levels = 1 + (container.isAtEnd ? 0 : try container.decode(NestedArrays.self).levels)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if levels > 1 { try container.encode(NestedArrays(levels: levels - 1)) }
    }
}
