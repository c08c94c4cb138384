import NavHostKit
import Observation

/// The catalog screen, `products.list`: the listed products, narrowed by a name filter.
///
/// Its state on the wire:
///
/// ```json
/// {"status":"loaded","value":{"filter":"engine","products":[
///     {"id":"p1","name":"Difference Engine Kit","category":"Models","price":"€1,299.00","isInStock":true}
/// ],"matchCount":1,"totalCount":6}}
/// ```
@MainActor
@Observable
final class ProductsViewModel: ViewModel {

    /// What the user can do on the catalog screen.
    enum Intent: ViewModelIntent {
        /// Loads the catalog again after a failure.
        case onTappedRetry
        /// Shows only the products whose name contains `text`; an empty text shows them all.
        case onChangedFilter(text: String)
        /// Opens the product's detail screen.
        case onTappedProduct(productID: String)

        static let names = ["onTappedRetry", "onChangedFilter", "onTappedProduct"]
    }

    /// The catalog as front ends show it.
    struct Catalog: Encodable, Equatable, Sendable {
        /// The name filter in effect; empty when there is none.
        var filter: String
        /// The products that match the filter, in catalog order.
        var products: [Row]
        /// How many products match the filter.
        var matchCount: Int
        /// How many products the catalog lists, whatever the filter.
        var totalCount: Int
    }

    /// One product of the list.
    struct Row: Encodable, Equatable, Sendable {
        var id: String
        var name: String
        var category: String
        /// The price as the customer reads it, like `€14.50`.
        var price: String
        var isInStock: Bool
    }

    // MARK: Private Properties

    @ObservationIgnored private var products: [Product] = []
    @ObservationIgnored private var filter = ""

    private let getProductsUseCase: any GetProductsUseCaseProtocol
    private let filterProductsByNameUseCase: any FilterProductsByNameUseCaseProtocol
    private let router: Router<ProductsRoute>
    private let logger: FeatureLogger

    // MARK: Public Properties

    private(set) var state: LoadingState<Catalog> = .idle

    // MARK: Initialization

    init(
        getProductsUseCase: any GetProductsUseCaseProtocol,
        filterProductsByNameUseCase: any FilterProductsByNameUseCaseProtocol,
        router: Router<ProductsRoute>,
        logger: FeatureLogger
    ) {
        self.getProductsUseCase = getProductsUseCase
        self.filterProductsByNameUseCase = filterProductsByNameUseCase
        self.router = router
        self.logger = logger
    }

    // MARK: Lifecycle

    func onAppear() async {
        await loadProducts()
    }

    // MARK: Public Functions

    func handle(_ intent: Intent) async {
        switch intent {
        case .onTappedRetry: await onTappedRetry()
        case .onChangedFilter(let text): onChangedFilter(text)
        case .onTappedProduct(let productID): onTappedProduct(productID: productID)
        }
    }

    func onTappedRetry() async {
        await loadProducts()
    }

    /// Remembers the filter even before the catalog has loaded, and applies it as soon as it has.
    func onChangedFilter(_ text: String) {
        filter = text
        guard case .loaded = state else { return }
        state = .loaded(formatCatalog())
    }

    func onTappedProduct(productID: String) {
        router.navigate(to: .detail(productID: productID))
    }
}

// MARK: - RestorableViewModel

extension ProductsViewModel: RestorableViewModel {
    /// What survives a restart of the daemon or a new build of the plugin: the name filter. The products are
    /// loaded again.
    struct RestorableState: Codable, Equatable {
        var filter: String
    }

    var restorableState: RestorableState {
        RestorableState(filter: filter)
    }

    func restore(from saved: RestorableState) {
        filter = saved.filter
    }
}

// MARK: - Private Functions

private extension ProductsViewModel {
    func loadProducts() async {
        guard !state.isLoading else { return }
        state = .loading
        do {
            products = try await getProductsUseCase.execute()
            state = .loaded(formatCatalog())
        } catch {
            logger.error("products.list.loadFailed", metadata: ["error": "\(error)"])
            state = .error("The catalog could not be loaded. Please try again.")
        }
    }

    func formatCatalog() -> Catalog {
        let matches = filterProductsByNameUseCase.execute(products, name: filter)
        return Catalog(
            filter: filter,
            products: matches.map(formatRow),
            matchCount: matches.count,
            totalCount: products.count
        )
    }

    func formatRow(_ product: Product) -> Row {
        Row(
            id: product.id,
            name: product.name,
            category: product.category,
            price: product.price.displayText,
            isInStock: product.isInStock
        )
    }
}
