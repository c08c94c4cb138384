import NavHostKit
import Observation

/// A third build of ``DraftFeature`` whose restorable state has a member the first build never saved, and no default
/// for it: what the first build saved does not decode, and its screens start fresh.
@MainActor
@Observable
final class RenumberedDraftViewModel: RestorableViewModel {
    struct Draft: Codable {
        var text: String
        var revision: Int
    }

    private(set) var state: DraftViewModel.State

    init(documentID: String) {
        state = DraftViewModel.State(documentID: documentID, text: "", appeared: 0)
    }

    var restorableState: Draft { Draft(text: state.text, revision: 1) }

    func restore(from saved: Draft) {
        state.text = saved.text
    }
}

@MainActor
final class RenumberedDraftCoordinator: Coordinator {
    func makeViewModel(for route: DraftRoute, router: Router<DraftRoute>) -> any ViewModel {
        switch route {
        case .editor(let documentID): RenumberedDraftViewModel(documentID: documentID)
        }
    }
}

final class RenumberedDraftFeature: FeatureModule {
    let name = "Draft"
    let screens = [
        ScreenDescriptor(route: "draft.editor", parameters: ["documentID"], viewModel: RenumberedDraftViewModel.self)
    ]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        RenumberedDraftCoordinator()
    }
}
