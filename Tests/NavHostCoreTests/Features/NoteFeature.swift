import NavHostKit
import Observation

/// A feature whose restorable state is `Equatable`: the host encodes it again only when it changed.
enum NoteRoute: Route {
    static let namespace = "note"
    case editor
}

@MainActor
@Observable
final class NoteViewModel: RestorableViewModel {
    struct State: Encodable, Equatable {
        var text = ""
    }

    struct Saved: Codable, Equatable {
        var text: String
    }

    private(set) var state = State()

    var restorableState: Saved { Saved(text: state.text) }

    func restore(from saved: Saved) {
        state.text = saved.text
    }

    enum Intent: ViewModelIntent {
        case onChangedText(text: String)
        static let names = ["onChangedText"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onChangedText(let text): state.text = text
        }
    }
}

@MainActor
final class NoteCoordinator: Coordinator {
    func makeViewModel(for route: NoteRoute, router: Router<NoteRoute>) -> any ViewModel {
        NoteViewModel()
    }
}

final class NoteFeature: FeatureModule {
    let name = "Note"
    let screens = [ScreenDescriptor(route: "note.editor", viewModel: NoteViewModel.self)]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { NoteCoordinator() }
}

/// An author's slip: a screen listed as `note.editors`, which `NoteRoute` has no case for.
final class MisspeltNoteFeature: FeatureModule {
    let name = "MisspeltNote"
    let screens = [ScreenDescriptor(route: "note.editors", viewModel: NoteViewModel.self)]
    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator { NoteCoordinator() }
}
