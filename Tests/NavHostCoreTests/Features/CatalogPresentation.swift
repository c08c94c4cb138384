import NavHostKit
import Observation

enum CatalogRoute: Route {
    static let namespace = "catalog"

    case list
    case detail(itemID: String)
    case editor
}

// MARK: - List

@MainActor
@Observable
final class CatalogListViewModel: ViewModel {
    // MARK: Private Properties

    private(set) var state: LoadingState<[Item]> = .idle
    private let getItemsUseCase: any GetItemsUseCaseProtocol
    private let router: Router<CatalogRoute>
    private let lifecycle: LifecycleRecorder

    // MARK: Initialization

    init(getItemsUseCase: any GetItemsUseCaseProtocol, router: Router<CatalogRoute>, lifecycle: LifecycleRecorder) {
        self.getItemsUseCase = getItemsUseCase
        self.router = router
        self.lifecycle = lifecycle
    }

    // MARK: Lifecycle

    func onAppear() async {
        lifecycle.record("list.onAppear")
        await loadItems()
    }

    func onDisappear() {
        lifecycle.record("list.onDisappear")
    }

    // MARK: Public Functions

    enum Intent: ViewModelIntent {
        case onTappedRetry
        case onTappedItem(itemID: String)
        case onTappedAdd
        case onTappedTwiceQuickly
        /// Closes the editor `onTappedAdd` opened, from the list below it.
        case onTappedCloseEditor

        static let names = [
            "onTappedRetry", "onTappedItem", "onTappedAdd", "onTappedTwiceQuickly", "onTappedCloseEditor",
        ]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedRetry: await onTappedRetry()
        case .onTappedItem(let itemID): onTappedItem(itemID: itemID)
        case .onTappedAdd: router.present(.editor)
        case .onTappedTwiceQuickly: onTappedTwiceQuickly()
        case .onTappedCloseEditor: router.dismiss()
        }
    }

    func onTappedRetry() async {
        await loadItems()
    }

    func onTappedItem(itemID: String) {
        router.navigate(to: .detail(itemID: itemID))
    }

    /// Two mutations in one synchronous stretch: clients must see one change.
    func onTappedTwiceQuickly() {
        state = .loading
        state = .loaded([.lamp])
    }
}

// MARK: - Private Functions

extension CatalogListViewModel {
    fileprivate func loadItems() async {
        state = .loading
        do {
            state = .loaded(try await getItemsUseCase.execute())
        } catch {
            state = .error("Failed to load items")
        }
    }
}

// MARK: - Detail

@MainActor
@Observable
final class CatalogDetailViewModel: ViewModel {
    struct State: Encodable, Equatable {
        var itemID: String
        var saves = 0
    }

    private(set) var state: State
    private let router: Router<CatalogRoute>
    private let lifecycle: LifecycleRecorder

    init(itemID: String, router: Router<CatalogRoute>, lifecycle: LifecycleRecorder) {
        self.state = State(itemID: itemID)
        self.router = router
        self.lifecycle = lifecycle
    }

    func onAppear() async { lifecycle.record("detail.onAppear") }
    func onDisappear() { lifecycle.record("detail.onDisappear") }

    enum Intent: ViewModelIntent {
        case onTappedBack
        case onTappedHome
        case onTappedOwner(userID: String)
        case onTappedDeepLink
        case onTappedBroken

        static let names = ["onTappedBack", "onTappedHome", "onTappedOwner", "onTappedDeepLink", "onTappedBroken"]
    }

    struct BrokenIntent: Error {}

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onTappedBack: router.pop()
        case .onTappedHome: router.popToRoot()
        case .onTappedOwner(let userID):
            router.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": .string(userID)]))
        case .onTappedDeepLink:
            router.replace(with: [.list, .detail(itemID: "i2")])
        case .onTappedBroken:
            throw BrokenIntent()
        }
    }
}

// MARK: - Editor (modal)

@MainActor
@Observable
final class CatalogEditorViewModel: ViewModel {
    struct State: Encodable, Equatable {
        var name = ""
        var isSaving = false
    }

    private(set) var state = State()
    private let saveItemUseCase: any SaveItemUseCaseProtocol
    private let router: Router<CatalogRoute>

    init(saveItemUseCase: any SaveItemUseCaseProtocol, router: Router<CatalogRoute>) {
        self.saveItemUseCase = saveItemUseCase
        self.router = router
    }

    enum Intent: ViewModelIntent {
        case onChangedName(name: String)
        case onTappedSave
        case onTappedClose

        static let names = ["onChangedName", "onTappedSave", "onTappedClose"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onChangedName(let name): state.name = name
        case .onTappedSave: await onTappedSave()
        case .onTappedClose: router.dismiss()
        }
    }

    func onTappedSave() async {
        state.isSaving = true
        do {
            try await saveItemUseCase.execute(name: state.name)
            state.isSaving = false
            router.dismiss()
        } catch {
            state.isSaving = false
        }
    }
}

/// Records lifecycle calls in order, for assertions.
@MainActor
final class LifecycleRecorder {
    private(set) var calls: [String] = []
    func record(_ call: String) { calls.append(call) }
}
