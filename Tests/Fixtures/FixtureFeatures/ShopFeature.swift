public import NavHostKit
import Observation

/// A shop: a product list that loads on appear, a product detail with parameters, and a modal cart that keeps its
/// items across restarts. Every intent finishes on its own (no use case waits on anything outside the process), so
/// a driver never has to wait on a screen.
public final class ShopFeature: FeatureModule {
    public let name = "Shop"
    public let screens = [
        ScreenDescriptor(route: "shop.list", viewModel: ShopListViewModel.self, summary: "Products"),
        ScreenDescriptor(
            route: "shop.detail",
            parameters: ["productID", "quantity"],
            viewModel: ShopDetailViewModel.self,
            summary: "One product"
        ),
        ScreenDescriptor(route: "shop.cart", viewModel: ShopCartViewModel.self, summary: "The cart"),
    ]

    public init() {}

    @MainActor
    public func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        let repository = ProductsRepositoryImpl(store: services.store)
        return ShopCoordinator(
            getProductsUseCase: GetProductsUseCase(repository: repository),
            saveCartUseCase: SaveCartUseCase(repository: repository)
        )
    }
}

enum ShopRoute: Route {
    static let namespace = "shop"

    case list
    case detail(productID: String, quantity: Int?)
    case cart
}

@MainActor
final class ShopCoordinator: Coordinator {
    private let getProductsUseCase: any GetProductsUseCaseProtocol
    private let saveCartUseCase: any SaveCartUseCaseProtocol

    init(getProductsUseCase: any GetProductsUseCaseProtocol, saveCartUseCase: any SaveCartUseCaseProtocol) {
        self.getProductsUseCase = getProductsUseCase
        self.saveCartUseCase = saveCartUseCase
    }

    func makeViewModel(for route: ShopRoute, router: Router<ShopRoute>) -> any ViewModel {
        switch route {
        case .list:
            ShopListViewModel(getProductsUseCase: getProductsUseCase, router: router)
        case .detail(let productID, let quantity):
            ShopDetailViewModel(productID: productID, quantity: quantity ?? 1, router: router)
        case .cart:
            ShopCartViewModel(saveCartUseCase: saveCartUseCase, router: router)
        }
    }
}

// MARK: - List

@MainActor
@Observable
final class ShopListViewModel: ViewModel {
    // MARK: Private Properties

    private let getProductsUseCase: any GetProductsUseCaseProtocol
    private let router: Router<ShopRoute>
    private var filter = ""

    // MARK: Public Properties

    private(set) var state: LoadingState<[Product]> = .idle

    // MARK: Initialization

    init(getProductsUseCase: any GetProductsUseCaseProtocol, router: Router<ShopRoute>) {
        self.getProductsUseCase = getProductsUseCase
        self.router = router
    }

    // MARK: Lifecycle

    func onAppear() async {
        await loadProducts()
    }

    // MARK: Public Functions

    enum Intent: ViewModelIntent {
        case onTappedRetry
        case onTappedProduct(productID: String)
        case onTappedCart
        case onChangedFilter(text: String)
        case onTappedBroken

        static let names = ["onTappedRetry", "onTappedProduct", "onTappedCart", "onChangedFilter", "onTappedBroken"]
    }

    struct BrokenIntent: Error {}

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onTappedRetry:
            await loadProducts()
        case .onTappedProduct(let productID):
            router.navigate(to: .detail(productID: productID, quantity: nil))
        case .onTappedCart:
            router.present(.cart)
        case .onChangedFilter(let text):
            filter = text
            await loadProducts()
        case .onTappedBroken:
            throw BrokenIntent()
        }
    }
}

// MARK: - Private Functions

extension ShopListViewModel {
    fileprivate func loadProducts() async {
        state = .loading
        do {
            state = .loaded(try await getProductsUseCase.execute(matching: filter))
        } catch {
            state = .error("Failed to load products")
        }
    }
}

// MARK: - Detail

@MainActor
@Observable
final class ShopDetailViewModel: ViewModel {
    struct State: Encodable, Equatable {
        var productID: String
        var quantity: Int
    }

    private(set) var state: State
    private let router: Router<ShopRoute>

    init(productID: String, quantity: Int, router: Router<ShopRoute>) {
        self.state = State(productID: productID, quantity: quantity)
        self.router = router
    }

    enum Intent: ViewModelIntent {
        case onTappedBack
        case onTappedHome
        case onTappedList
        case onChangedQuantity(quantity: Int)
        case onTappedDeepLink
        case onTappedOwner(userID: String)

        static let names = [
            "onTappedBack", "onTappedHome", "onTappedList", "onChangedQuantity", "onTappedDeepLink", "onTappedOwner",
        ]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedBack: router.pop()
        case .onTappedHome: router.popToRoot()
        case .onTappedList: router.popTo(.list)
        case .onChangedQuantity(let quantity): state.quantity = quantity
        case .onTappedDeepLink: router.replace(with: [.list, .detail(productID: "p2", quantity: 2)])
        case .onTappedOwner(let userID):
            router.navigate(to: RouteRequest(id: "account.profile", parameters: ["userID": .string(userID)]))
        }
    }
}

// MARK: - Cart (modal)

@MainActor
@Observable
final class ShopCartViewModel: RestorableViewModel {
    struct State: Encodable, Equatable {
        var items: [String] = []
        var isSaving = false
        var message: String?
    }

    struct Saved: Codable {
        var items: [String]
    }

    private(set) var state = State()
    private let saveCartUseCase: any SaveCartUseCaseProtocol
    private let router: Router<ShopRoute>

    init(saveCartUseCase: any SaveCartUseCaseProtocol, router: Router<ShopRoute>) {
        self.saveCartUseCase = saveCartUseCase
        self.router = router
    }

    var restorableState: Saved { Saved(items: state.items) }

    func restore(from saved: Saved) {
        state.items = saved.items
    }

    enum Intent: ViewModelIntent {
        case onTappedAdd(productID: String)
        case onTappedCheckout
        case onTappedClose

        static let names = ["onTappedAdd", "onTappedCheckout", "onTappedClose"]
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedAdd(let productID): state.items.append(productID)
        case .onTappedCheckout: await onTappedCheckout()
        case .onTappedClose: router.dismiss()
        }
    }

    func onTappedCheckout() async {
        state.isSaving = true
        do {
            try await saveCartUseCase.execute(productIDs: state.items)
            state = State()
            router.dismiss()
        } catch {
            state.isSaving = false
            state.message = "The cart could not be saved"
        }
    }
}
