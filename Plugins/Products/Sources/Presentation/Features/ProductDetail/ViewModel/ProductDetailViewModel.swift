import NavHostKit
import Observation

/// The product screen, `products.detail`: one product, with a way to its seller's profile.
///
/// Its state on the wire:
///
/// ```json
/// {"status":"loaded","value":{"id":"p3","name":"Nanosecond Wire","description":"…","category":"Curiosities",
///  "price":"$5.00","availability":"Out of stock","isInStock":false,"seller":{"id":"u2","name":"Grace Hopper"}}}
/// ```
@MainActor
@Observable
final class ProductDetailViewModel: ViewModel {

    /// What the user can do on the product screen.
    enum Intent: ViewModelIntent {
        /// Loads the product again after a failure.
        case onTappedRetry
        /// Opens the seller's profile (the UserProfile feature's `profile.user`).
        case onTappedSeller

        static let names = ["onTappedRetry", "onTappedSeller"]
    }

    /// The product as front ends show it.
    struct Detail: Encodable, Equatable, Sendable {
        var id: String
        var name: String
        var description: String
        var category: String
        /// The price as the customer reads it, like `$29.99`.
        var price: String
        /// `In stock` or `Out of stock`.
        var availability: String
        var isInStock: Bool
        var seller: Seller
    }

    /// Who sells the product.
    struct Seller: Encodable, Equatable, Sendable {
        /// The seller's user ID, which `onTappedSeller` opens.
        var id: String
        var name: String
    }

    // MARK: Private Properties

    private let productID: String
    private let getProductUseCase: any GetProductUseCaseProtocol
    private let router: Router<ProductsRoute>
    private let logger: FeatureLogger
    /// Holds an intent sent while the product loads until it has.
    @ObservationIgnored private let loadCompletion = LoadCompletion()

    // MARK: Public Properties

    private(set) var state: LoadingState<Detail> = .idle

    // MARK: Initialization

    init(
        productID: String,
        getProductUseCase: any GetProductUseCaseProtocol,
        router: Router<ProductsRoute>,
        logger: FeatureLogger
    ) {
        self.productID = productID
        self.getProductUseCase = getProductUseCase
        self.router = router
        self.logger = logger
    }

    // MARK: Lifecycle

    func onAppear() async {
        await loadProduct()
    }

    // MARK: Public Functions

    func handle(_ intent: Intent) async throws {
        switch intent {
        case .onTappedRetry: await onTappedRetry()
        case .onTappedSeller: try await onTappedSeller()
        }
    }

    func onTappedRetry() async {
        await loadProduct()
    }

    /// Opens the seller's profile once the product has loaded (a front end may send it right after navigating here);
    /// fails when the product did not load.
    func onTappedSeller() async throws {
        let detail = try await loadCompletion.value(of: state)
        router.navigate(to: ExternalRoute.userProfile(userID: detail.seller.id))
    }
}

// MARK: - Private Functions

private extension ProductDetailViewModel {
    func loadProduct() async {
        guard !state.isLoading else { return }
        state = .loading
        defer { loadCompletion.signal() }
        do {
            let product = try await getProductUseCase.execute(productID: productID)
            state = .loaded(formatDetail(product))
        } catch {
            logger.error("products.detail.loadFailed", metadata: ["productID": "\(productID)", "error": "\(error)"])
            state = .error(formatLoadError(error))
        }
    }

    func formatDetail(_ product: Product) -> Detail {
        Detail(
            id: product.id,
            name: product.name,
            description: product.description,
            category: product.category,
            price: product.price.displayText,
            availability: product.isInStock ? "In stock" : "Out of stock",
            isInStock: product.isInStock,
            seller: Seller(id: product.seller.id, name: product.seller.name)
        )
    }

    func formatLoadError(_ error: any Error) -> String {
        switch error {
        case ProductsError.productNotFound:
            return "This product is not available."
        default:
            return "The product could not be loaded. Please try again."
        }
    }
}
