import NavHostKit
import Observation

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

    init(documentID: String) {
        state = State(documentID: documentID, text: "", appeared: 0)
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
        static let names = ["onChangedText", "onTappedNothing", "onTappedSaveSlowly"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onChangedText(let text): state.text = text
        case .onTappedNothing: break
        case .onTappedSaveSlowly(let text):
            try? await Task.sleep(for: .seconds(30))
            state.text = text
        }
    }
}

@MainActor
final class DraftCoordinator: Coordinator {
    func makeViewModel(for route: DraftRoute, router: Router<DraftRoute>) -> any ViewModel {
        switch route {
        case .editor(let documentID): DraftViewModel(documentID: documentID)
        }
    }
}

final class DraftFeature: FeatureModule {
    let name = "Draft"
    let screens = [ScreenDescriptor(route: "draft.editor", parameters: ["documentID"], viewModel: DraftViewModel.self)]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { DraftCoordinator() }
}
