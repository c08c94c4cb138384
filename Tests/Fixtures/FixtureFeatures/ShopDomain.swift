import NavHostKit

// The shop feature's domain and data: entities, use cases, and a repository over the host's key-value store.

// MARK: - Entities

struct Product: Codable, Equatable, Sendable {
    var id: String
    var name: String
    var price: Int
}

extension Product {
    static let defaults = [
        Product(id: "p1", name: "Lamp", price: 30),
        Product(id: "p2", name: "Desk", price: 120),
        Product(id: "p3", name: "Chair", price: 45),
    ]
}

// MARK: - Repositories

protocol ProductsRepository: Sendable {
    func products() async throws -> [Product]
    func saveCart(_ productIDs: [String]) async throws
}

/// Products from the store (the defaults when it holds none); the cart back into it.
struct ProductsRepositoryImpl: ProductsRepository {
    let store: any KeyValueStore

    func products() async throws -> [Product] {
        try await store.load([Product].self, forKey: "products") ?? Product.defaults
    }

    func saveCart(_ productIDs: [String]) async throws {
        try await store.save(productIDs, forKey: "cart")
    }
}

// MARK: - Use Cases

protocol GetProductsUseCaseProtocol: Sendable {
    func execute(matching filter: String) async throws -> [Product]
}

protocol SaveCartUseCaseProtocol: Sendable {
    func execute(productIDs: [String]) async throws
}

struct GetProductsUseCase: GetProductsUseCaseProtocol {
    let repository: any ProductsRepository

    func execute(matching filter: String) async throws -> [Product] {
        let products = try await repository.products()
        guard !filter.isEmpty else { return products }
        return products.filter { $0.name.lowercased().contains(filter.lowercased()) }
    }
}

/// Refuses an empty cart, as a business rule the ViewModel turns into state.
struct SaveCartUseCase: SaveCartUseCaseProtocol {
    struct EmptyCart: Error {}

    let repository: any ProductsRepository

    func execute(productIDs: [String]) async throws {
        guard !productIDs.isEmpty else { throw EmptyCart() }
        try await repository.saveCart(productIDs)
    }
}
