/// The catalog, read from the file the plugin ships.
final class ProductsRepositoryImpl: ProductsRepositoryProtocol {

    // MARK: Private Properties

    private let dataSource: any ProductCatalogDataSourceProtocol

    // MARK: Initialization

    init(dataSource: any ProductCatalogDataSourceProtocol) {
        self.dataSource = dataSource
    }

    // MARK: Public Functions

    func fetchProducts() async throws -> [Product] {
        try await dataSource.loadCatalog().products.map { $0.toDomain() }
    }
}
