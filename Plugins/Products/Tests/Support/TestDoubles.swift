import Foundation
import NavHostJSON
import NavHostKit
import NavHostTesting
import Synchronization

@testable import ProductsFeature

// MARK: - Mock

/// A `GetProductsUseCase` whose answers the test writes, one call at a time.
final class GetProductsUseCaseMock: GetProductsUseCaseProtocol {
    private let answer: @Sendable (Int) async throws -> [Product]
    private let calls = Mutex(0)

    /// How many times `execute()` was called.
    var callCount: Int { calls.withLock { $0 } }

    /// Answers call `n` (from 0) with `answer(n)`.
    init(_ answer: @escaping @Sendable (Int) async throws -> [Product]) {
        self.answer = answer
    }

    static func returning(_ products: [Product]) -> GetProductsUseCaseMock {
        GetProductsUseCaseMock { _ in products }
    }

    static func failing(_ error: any Error = TestError.unavailable) -> GetProductsUseCaseMock {
        GetProductsUseCaseMock { _ in throw error }
    }

    /// Every call waits for the test's answer through `suspension`.
    static func suspended(_ suspension: Suspension<[Product]>) -> GetProductsUseCaseMock {
        GetProductsUseCaseMock { _ in try await suspension.value() }
    }

    func execute() async throws -> [Product] {
        let call = calls.withLock { count in
            defer { count += 1 }
            return count
        }
        return try await answer(call)
    }
}

/// A `GetProductUseCase` whose answer the test writes; it records the IDs it was asked for.
final class GetProductUseCaseMock: GetProductUseCaseProtocol {
    private let answer: @Sendable (Int) async throws -> Product
    private let requests = Mutex<[String]>([])

    /// The product IDs asked for, oldest first.
    var requestedIDs: [String] { requests.withLock { $0 } }

    init(_ answer: @escaping @Sendable (Int) async throws -> Product) {
        self.answer = answer
    }

    static func returning(_ product: Product) -> GetProductUseCaseMock {
        GetProductUseCaseMock { _ in product }
    }

    static func failing(_ error: any Error = TestError.unavailable) -> GetProductUseCaseMock {
        GetProductUseCaseMock { _ in throw error }
    }

    static func suspended(_ suspension: Suspension<Product>) -> GetProductUseCaseMock {
        GetProductUseCaseMock { _ in try await suspension.value() }
    }

    func execute(productID: String) async throws -> Product {
        let call = requests.withLock { ids in
            ids.append(productID)
            return ids.count - 1
        }
        return try await answer(call)
    }
}

/// A repository that answers from memory.
final class ProductsRepositoryMock: ProductsRepositoryProtocol {
    private let products: Result<[Product], any Error>

    init(_ products: [Product]) { self.products = .success(products) }
    init(failingWith error: any Error) { self.products = .failure(error) }

    func fetchProducts() async throws -> [Product] { try products.get() }
}

// MARK: - Fixtures

extension Product {
    /// A listed product with plausible defaults.
    static func fixture(
        id: String = "p1",
        name: String = "Difference Engine Kit",
        category: String = "Models",
        price: Money = Money(amountInCents: 129_900, currency: "EUR"),
        stock: Int = 4,
        isListed: Bool = true,
        seller: Seller = Seller(id: "u1", name: "Ada Lovelace")
    ) -> Product {
        Product(
            id: id,
            name: name,
            description: "A desk model of \(name).",
            category: category,
            price: price,
            stock: stock,
            isListed: isListed,
            seller: seller
        )
    }
}

/// The files the plugin ships, found from this source file's path.
enum PluginFiles {
    /// `Plugins/Products`.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `Plugins/Products/Resources`: the folder the daemon copies beside the `.so`.
    static let resources = root.appendingPathComponent("Resources")

    /// `Plugins/Products/plugin.json`.
    static let manifest = root.appendingPathComponent("plugin.json")
}

/// Host services for tests: silent logs, the continuous clock, an empty store and the shipped resources.
func makeTestServices(resourceDirectory: String = PluginFiles.resources.path) -> HostServices {
    HostServices(
        logger: .silent,
        clock: ContinuousClock(),
        store: EmptyKeyValueStore(),
        resourceDirectory: resourceDirectory
    )
}

/// A store that holds nothing: the Products feature keeps no data of its own.
struct EmptyKeyValueStore: KeyValueStore {
    func value(forKey key: String) async throws -> JSONValue? { nil }
    func setValue(_ value: JSONValue, forKey key: String) async throws {}
    func removeValue(forKey key: String) async throws {}
}
