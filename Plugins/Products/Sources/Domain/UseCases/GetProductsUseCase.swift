/// Gives the products a customer may browse.
protocol GetProductsUseCaseProtocol: Sendable {
    /// The listed products, in catalog order.
    func execute() async throws -> [Product]
}

/// Gives the listed products: products withdrawn from sale are never shown.
final class GetProductsUseCase: GetProductsUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any ProductsRepositoryProtocol

    // MARK: Initialization

    init(repository: any ProductsRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute() async throws -> [Product] {
        try await repository.fetchProducts().filter(\.isListed)
    }
}
