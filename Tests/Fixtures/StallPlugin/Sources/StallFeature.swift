// A test fixture, not an example: a plugin whose use case never returns, so that the daemon's intent time limit can
// be tested against a real `.so`. The example plugins stay as the seeds teach them; test hooks live here.
import Glibc
import NavHostKit
import Observation

@_cdecl("navhost_feature_entry")
public func navhostFeatureEntry() -> UnsafeMutableRawPointer {
    FeatureExport.export(StallFeature())
}

/// One screen, `stall.main`: `onTappedWait` runs a use case that never returns; `onTappedCount` answers at once;
/// `onTappedSaveLate` waits, ignoring cancellation, until `onTappedRelease` lets it write to the feature's store, and
/// `onTappedRelease` answers with what became of that write; `onTappedSaveWhenCancelled` writes to the store once
/// cancelled, and appends what became of that write to a file.
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
        StallCoordinator(store: services.store)
    }
}

enum StallRoute: Route {
    static let namespace = "stall"
    case main
}

@MainActor
final class StallCoordinator: Coordinator {
    private let store: any KeyValueStore

    init(store: any KeyValueStore) {
        self.store = store
    }

    func makeViewModel(for route: StallRoute, router: Router<StallRoute>) -> any ViewModel {
        StallViewModel(waitForeverUseCase: WaitForeverUseCase(), store: store)
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
        /// Waits, ignoring cancellation, until `onTappedRelease`; then stores `"late": true` in the feature's store.
        case onTappedSaveLate
        /// Lets the waiting `onTappedSaveLate` go on, and sets `lateWrite` to what became of its write: `written`,
        /// `refused: ERROR`, or `nothing waited`.
        case onTappedRelease
        /// Waits until its task is cancelled (its screen closed, or its time ran out), then stores
        /// `"afterCancel": true` in the feature's store all the same, and appends a line to `outcomeFile` with what
        /// became of that write: `written` or `refused: ERROR`. The ViewModel's state is no longer reported then.
        case onTappedSaveWhenCancelled(outcomeFile: String)

        static let names = [
            "onTappedWait", "onTappedCount", "onTappedSaveLate", "onTappedRelease", "onTappedSaveWhenCancelled",
        ]
    }

    struct State: Encodable, Equatable, Sendable {
        var waiting = 0
        var count = 0
        var lateWrite: String?
    }

    private let waitForeverUseCase: any WaitForeverUseCaseProtocol
    private let store: any KeyValueStore
    /// The waiting `onTappedSaveLate`, until `onTappedRelease` lets it go on.
    private var release: CheckedContinuation<Void, Never>?
    /// The `onTappedRelease` waiting for what became of the late write.
    private var lateWriteDone: CheckedContinuation<String, Never>?

    private(set) var state = State()

    init(waitForeverUseCase: any WaitForeverUseCaseProtocol, store: any KeyValueStore) {
        self.waitForeverUseCase = waitForeverUseCase
        self.store = store
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedWait:
            state.waiting += 1
            await waitForeverUseCase.execute()
        case .onTappedCount:
            state.count += 1
        case .onTappedSaveLate:
            state.waiting += 1
            await withCheckedContinuation { release = $0 }
            let outcome: String
            do {
                try await store.setValue(true, forKey: "late")
                outcome = "written"
            } catch {
                outcome = "refused: \(error)"
            }
            lateWriteDone?.resume(returning: outcome)
            lateWriteDone = nil
        case .onTappedRelease:
            guard let waiting = release else {
                state.lateWrite = "nothing waited"
                return
            }
            release = nil
            state.lateWrite = await withCheckedContinuation { done in
                lateWriteDone = done
                waiting.resume()
            }
        case .onTappedSaveWhenCancelled(let outcomeFile):
            state.waiting += 1
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            let outcome: String
            do {
                try await store.setValue(true, forKey: "afterCancel")
                outcome = "written"
            } catch {
                outcome = "refused: \(error)"
            }
            guard let file = fopen(outcomeFile, "a") else { return }
            fputs("\(outcome)\n", file)
            fclose(file)
        }
    }
}
