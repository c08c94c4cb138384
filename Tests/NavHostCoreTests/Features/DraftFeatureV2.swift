import NavHostKit
import Observation

/// A second build of ``DraftFeature``: the same name, route and restorable state, different code — it stores the
/// text it is given in capitals, and its state says which build it is.
@MainActor
@Observable
final class ShoutingDraftViewModel: RestorableViewModel {
    struct State: Encodable, Equatable {
        var documentID: String
        var text: String
        var appeared: Int
        var build = 2
    }

    private(set) var state: State

    init(documentID: String) {
        state = State(documentID: documentID, text: "", appeared: 0)
    }

    var restorableState: DraftViewModel.Draft { DraftViewModel.Draft(text: state.text) }

    func restore(from saved: DraftViewModel.Draft) {
        state.text = saved.text
    }

    func onAppear() async {
        state.appeared += 1
    }

    enum Intent: ViewModelIntent {
        case onChangedText(text: String)
        case onTappedNothing
        /// This build saves at once.
        case onTappedSaveSlowly(text: String)
        static let names = ["onChangedText", "onTappedNothing", "onTappedSaveSlowly"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onChangedText(let text), .onTappedSaveSlowly(let text): state.text = text.uppercased()
        case .onTappedNothing: break
        }
    }
}

@MainActor
final class ShoutingDraftCoordinator: Coordinator {
    func makeViewModel(for route: DraftRoute, router: Router<DraftRoute>) -> any ViewModel {
        switch route {
        case .editor(let documentID): ShoutingDraftViewModel(documentID: documentID)
        }
    }
}

final class ShoutingDraftFeature: FeatureModule {
    let name = "Draft"
    let screens = [
        ScreenDescriptor(route: "draft.editor", parameters: ["documentID"], viewModel: ShoutingDraftViewModel.self)
    ]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        ShoutingDraftCoordinator()
    }
}
