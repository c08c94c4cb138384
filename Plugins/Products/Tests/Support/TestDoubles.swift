import Foundation
import NavHostJSON
import NavHostKit
import NavHostTesting

@testable import ProductsFeature

// MARK: - Mock

/// A `GetProductsUseCase` whose answers the test writes, one call at a time (``ScriptedAnswers``).
final class GetProductsUseCaseMock: GetProductsUseCaseProtocol, ScriptedUseCase {
    let answers: ScriptedAnswers<Void, [Product]>

    init(_ answers: ScriptedAnswers<Void, [Product]>) {
        self.answers = answers
    }

    /// How many times `execute()` was called.
    var callCount: Int { answers.callCount }

    func execute() async throws -> [Product] {
        try await answers.answer(())
    }
}

/// A `GetProductUseCase` whose answers the test writes (``ScriptedAnswers``); it records the IDs it was asked for.
final class GetProductUseCaseMock: GetProductUseCaseProtocol, ScriptedUseCase {
    let answers: ScriptedAnswers<String, Product>

    init(_ answers: ScriptedAnswers<String, Product>) {
        self.answers = answers
    }

    /// The product IDs asked for, oldest first.
    var requestedIDs: [String] { answers.inputs }

    func execute(productID: String) async throws -> Product {
        try await answers.answer(productID)
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
