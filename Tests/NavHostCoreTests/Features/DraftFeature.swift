import NavHostKit
import Observation
import Synchronization

/// A feature whose ViewModel keeps a draft across restarts: the restorable-state path.
enum DraftRoute: Route {
    static let namespace = "draft"
    case editor(documentID: String)
}

@MainActor
@Observable
final class DraftViewModel: RestorableViewModel {
    struct State: Encodable, Equatable {
        var documentID: String
        var text: String
        var appeared: Int
    }

    struct Draft: Codable {
        var text: String
    }

    private(set) var state: State

    /// Where ``Intent/onChangedTextThenWait(text:)`` waits, and counts its deliveries.
    private let waitingRoom: DraftWaitingRoom?

    init(documentID: String, waitingRoom: DraftWaitingRoom? = nil) {
        state = State(documentID: documentID, text: "", appeared: 0)
        self.waitingRoom = waitingRoom
    }

    var restorableState: Draft { Draft(text: state.text) }

    func restore(from saved: Draft) {
        state.text = saved.text
    }

    func onAppear() async {
        state.appeared += 1
    }

    enum Intent: ViewModelIntent {
        case onChangedText(text: String)
        case onTappedNothing
        /// Saves `text` after a long wait: an intent still in flight when a test needs one.
        case onTappedSaveSlowly(text: String)
        /// Sets the text after a suspension, then waits, ignoring cancellation, until the feature's waiting room opens:
        /// an intent in flight with a restorable change made, which a background save writes while it waits.
        case onChangedTextThenWait(text: String)
        /// Waits, ignoring cancellation, until the feature's waiting room opens, then sets the text: work a closed
        /// screen's cancelled intent goes on with, changing its restorable state after the close.
        case onTappedSaveAfterTheGate(text: String)
        static let names = [
            "onChangedText", "onTappedNothing", "onTappedSaveSlowly", "onChangedTextThenWait",
            "onTappedSaveAfterTheGate",
        ]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onChangedText(let text): state.text = text
        case .onTappedNothing: break
        case .onTappedSaveSlowly(let text):
            try? await Task.sleep(for: .seconds(30))
            state.text = text
        case .onChangedTextThenWait(let text):
            // After a suspension: the change is reported from a task the intent's work started, which inherits its
            // screen task, as the background save it queues does.
            await Task.yield()
            state.text = text
            waitingRoom?.deliveries.add(1, ordering: .relaxed)
            await waitingRoom?.gate.wait()
        case .onTappedSaveAfterTheGate(let text):
            waitingRoom?.deliveries.add(1, ordering: .relaxed)
            await waitingRoom?.gate.wait()
            state.text = text
            waitingRoom?.changesAfterTheGate.add(1, ordering: .relaxed)
        }
    }
}

@MainActor
final class DraftCoordinator: Coordinator {
    private let waitingRoom: DraftWaitingRoom?

    init(waitingRoom: DraftWaitingRoom? = nil) {
        self.waitingRoom = waitingRoom
    }

    func makeViewModel(for route: DraftRoute, router: Router<DraftRoute>) -> any ViewModel {
        switch route {
        case .editor(let documentID): DraftViewModel(documentID: documentID, waitingRoom: waitingRoom)
        }
    }
}

/// Where a draft's ``DraftViewModel/Intent/onChangedTextThenWait(text:)`` waits until a test opens its gate, and how
/// many times that intent was delivered (a screen rebuilt under it gets it again).
final class DraftWaitingRoom: Sendable {
    let gate = Gate()
    let deliveries = Atomic<Int>(0)
    /// How many times ``DraftViewModel/Intent/onTappedSaveAfterTheGate(text:)`` set its text.
    let changesAfterTheGate = Atomic<Int>(0)
}

final class DraftFeature: FeatureModule {
    let name = "Draft"
    let screens = [ScreenDescriptor(route: "draft.editor", parameters: ["documentID"], viewModel: DraftViewModel.self)]
    /// Shared by every draft the feature makes.
    let waitingRoom = DraftWaitingRoom()

    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        DraftCoordinator(waitingRoom: waitingRoom)
    }
}
