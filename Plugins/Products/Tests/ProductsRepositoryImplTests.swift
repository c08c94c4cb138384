import Foundation
import NavHostKit
import Testing

@testable import ProductsFeature

@Suite("The catalog repository, over the file the plugin ships")
struct ProductsRepositoryImplTests {
    private func makeRepository(directory: String = PluginFiles.resources.path) -> ProductsRepositoryImpl {
        ProductsRepositoryImpl(
            dataSource: ProductCatalogFileDataSource(
                resources: ResourceFolder(path: directory),
                clock: ContinuousClock(),
                logger: .silent
            )
        )
    }

    @Test("It reads every product of the shipped products.json, in file order")
    func readsTheShippedCatalog() async throws {
        let products = try await makeRepository().fetchProducts()
        #expect(products.map(\.id) == ["p1", "p2", "p3", "p4", "p5", "p6", "p7"])
        #expect(Set(products.map(\.id)).count == products.count, "product IDs are unique")
    }

    @Test("It maps a product's fields to the domain")
    func mapsFields() async throws {
        let wire = try #require(try await makeRepository().fetchProducts().first { $0.id == "p3" })
        #expect(wire.name == "Nanosecond Wire")
        #expect(wire.category == "Curiosities")
        #expect(wire.price == Money(amountInCents: 500, currency: "USD"))
        #expect(wire.stock == 0)
        #expect(!wire.isInStock)
        #expect(wire.isListed)
        #expect(wire.seller == Seller(id: "u2", name: "Grace Hopper"))
    }

    @Test("The shipped catalog withdraws exactly one product, and sells from the seeded users u1 and u2")
    func shippedCatalogShape() async throws {
        let products = try await makeRepository().fetchProducts()
        #expect(products.filter { !$0.isListed }.map(\.id) == ["p7"])
        #expect(Set(products.map(\.seller.id)) == ["u1", "u2"])
    }

    @Test("A resource folder path with a trailing slash works too")
    func trailingSlash() async throws {
        #expect(try await makeRepository(directory: PluginFiles.resources.path + "/").fetchProducts().count == 7)
    }

    @Test("A missing catalog file is an unreadable-catalog error")
    func missingFile() async throws {
        let directory = try TemporaryDirectory()
        await #expect {
            try await makeRepository(directory: directory.path).fetchProducts()
        } throws: { error in
            guard case ProductCatalogError.unreadable(let resource, let reason) = error else { return false }
            return resource == "products.json" && reason == "No such file or directory"
        }
    }

    @Test("A catalog file that is not the expected JSON is a malformed-catalog error")
    func malformedFile() async throws {
        let directory = try TemporaryDirectory()
        try Data(#"{"products":[{"id":"p1"}]}"#.utf8).write(to: directory.url.appendingPathComponent("products.json"))
        await #expect {
            try await makeRepository(directory: directory.path).fetchProducts()
        } throws: { error in
            guard case ProductCatalogError.malformed(_, let reason) = error else { return false }
            return reason.contains("name")
        }
    }
}

/// A fresh folder under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("products-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
