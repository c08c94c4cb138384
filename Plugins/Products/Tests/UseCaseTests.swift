import NavHostTesting
import Testing

@testable import ProductsFeature

@Suite("The catalog's use cases")
struct UseCaseTests {
    private let engineKit = Product.fixture(id: "p1", name: "Difference Engine Kit")
    private let notebook = Product.fixture(id: "p2", name: "Punched Card Notebook")
    private let withdrawn = Product.fixture(id: "p7", name: "Mercury Delay Line Memory", isListed: false)

    @Test("Getting the products leaves out the ones withdrawn from sale")
    func withdrawnProductsAreHidden() async throws {
        let useCase = GetProductsUseCase(repository: ProductsRepositoryMock([engineKit, withdrawn, notebook]))
        #expect(try await useCase.execute() == [engineKit, notebook])
    }

    @Test("Getting the products passes the repository's failure on")
    func productsFailure() async {
        let useCase = GetProductsUseCase(repository: ProductsRepositoryMock(failingWith: TestError.unavailable))
        await #expect(throws: TestError.unavailable) { try await useCase.execute() }
    }

    @Test("Getting one product finds it by ID")
    func oneProduct() async throws {
        let useCase = GetProductUseCase(repository: ProductsRepositoryMock([engineKit, notebook]))
        #expect(try await useCase.execute(productID: "p2") == notebook)
    }

    @Test("Getting an unknown product throws productNotFound")
    func unknownProduct() async {
        let useCase = GetProductUseCase(repository: ProductsRepositoryMock([engineKit]))
        await #expect(throws: ProductsError.productNotFound(productID: "p9")) {
            try await useCase.execute(productID: "p9")
        }
    }

    @Test("Getting a withdrawn product throws productNotFound, as if it did not exist")
    func withdrawnProduct() async {
        let useCase = GetProductUseCase(repository: ProductsRepositoryMock([withdrawn]))
        await #expect(throws: ProductsError.productNotFound(productID: "p7")) {
            try await useCase.execute(productID: "p7")
        }
    }

    @Test(
        "Filtering by name ignores case and surrounding spaces",
        arguments: [
            ("engine", ["p1"]),
            ("  ENGINE ", ["p1"]),
            ("n", ["p1", "p2"]),
            ("card note", ["p2"]),
            ("abacus", []),
        ]
    )
    func filteringByName(text: String, expectedIDs: [String]) {
        let matches = FilterProductsByNameUseCase().execute([engineKit, notebook], name: text)
        #expect(matches.map(\.id) == expectedIDs)
    }

    @Test(
        "ASCII and other text are matched alike: tabs and newlines trimmed, accents and non-ASCII spaces too",
        arguments: [
            ("\tengine\n", ["p1"]),
            ("\u{A0}ÉCOLE\u{2003}", ["p9"]),
            ("école", ["p9"]),
            ("Engine É", []),
            ("ECOLE", []),
        ]
    )
    func filteringAcrossScripts(text: String, expectedIDs: [String]) {
        let school = Product.fixture(id: "p9", name: " École Abacus ")
        let matches = FilterProductsByNameUseCase().execute([engineKit, school], name: text)
        #expect(matches.map(\.id) == expectedIDs)
    }

    @Test("Filtering with a blank name keeps every product, in order", arguments: ["", "   ", "\u{A0}\t"])
    func blankFilter(text: String) {
        #expect(FilterProductsByNameUseCase().execute([notebook, engineKit], name: text) == [notebook, engineKit])
    }
}
