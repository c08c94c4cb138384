/// Where the catalog's products come from.
protocol ProductsRepositoryProtocol: Sendable {
    /// Every product in the catalog, withdrawn ones included, in catalog order.
    func fetchProducts() async throws -> [Product]
}
