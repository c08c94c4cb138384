/// Gives one product a customer may look at.
protocol GetProductUseCaseProtocol: Sendable {
    /// The listed product with ID `productID`.
    ///
    /// - Throws: ``ProductsError/productNotFound(productID:)`` when no listed product has that ID.
    func execute(productID: String) async throws -> Product
}

/// Gives one listed product: a withdrawn product is as good as missing.
final class GetProductUseCase: GetProductUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any ProductsRepositoryProtocol

    // MARK: Initialization

    init(repository: any ProductsRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute(productID: String) async throws -> Product {
        let products = try await repository.fetchProducts()
        guard let product = products.first(where: { $0.id == productID }), product.isListed else {
            throw ProductsError.productNotFound(productID: productID)
        }
        return product
    }
}
