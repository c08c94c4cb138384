import NavHostKit
import Observation

/// A feature whose restorable state is not part of its visible state: a change to it makes no new revision, as the
/// catalog's filter typed before the catalog has loaded. The persistence tests reach its ViewModel through `last`.
enum HiddenDraftRoute: Route {
    static let namespace = "hidden"
    case draft
}

@MainActor
@Observable
final class HiddenDraftViewModel: RestorableViewModel {
    /// The ViewModel made or restored last.
    static weak var last: HiddenDraftViewModel?

    struct Saved: Codable {
        var text: String
    }

    /// Kept across restarts, never shown.
    var text = ""

    var restorableState: Saved { Saved(text: text) }

    init() {
        Self.last = self
    }

    func restore(from saved: Saved) {
        text = saved.text
    }

    func handle(_ intent: NoIntent) async {}
}

@MainActor
final class HiddenDraftCoordinator: Coordinator {
    func makeViewModel(for route: HiddenDraftRoute, router: Router<HiddenDraftRoute>) -> any ViewModel {
        HiddenDraftViewModel()
    }
}

final class HiddenDraftFeature: FeatureModule {
    let name = "HiddenDraft"
    let screens = [ScreenDescriptor(route: "hidden.draft", viewModel: HiddenDraftViewModel.self)]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        HiddenDraftCoordinator()
    }
}
