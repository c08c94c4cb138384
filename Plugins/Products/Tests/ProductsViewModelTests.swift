import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import ProductsFeature

@MainActor
@Suite("The catalog screen", .timeLimit(.minutes(1)))
struct ProductsViewModelTests {
    private let engineKit = Product.fixture(id: "p1", name: "Difference Engine Kit")
    private let notebook = Product.fixture(
        id: "p2",
        name: "Punched Card Notebook",
        category: "Stationery",
        price: Money(amountInCents: 1450, currency: "EUR"),
        stock: 0
    )

    private func makeViewModel(
        _ getProducts: GetProductsUseCaseMock,
        router: Router<ProductsRoute> = Router()
    ) -> ProductsViewModel {
        ProductsViewModel(
            getProductsUseCase: getProducts,
            filterProductsByNameUseCase: FilterProductsByNameUseCase(),
            router: router,
            logger: .silent
        )
    }

    private func rows(_ products: Product...) -> [ProductsViewModel.Row] {
        products.map {
            ProductsViewModel.Row(
                id: $0.id,
                name: $0.name,
                category: $0.category,
                price: $0.price.displayText,
                isInStock: $0.isInStock
            )
        }
    }

    @Test("It is idle before it appears")
    func idleBeforeAppearing() {
        #expect(makeViewModel(.returning([])).state == .idle)
    }

    @Test("Appearing shows loading while the catalog is fetched, then the catalog")
    func appearingLoadsTheCatalog() async {
        let suspension = Suspension<[Product]>()
        let viewModel = makeViewModel(.suspended(suspension))

        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)

        suspension.resume(returning: [engineKit, notebook])
        await appearing.value
        #expect(
            viewModel.state
                == .loaded(.init(filter: "", products: rows(engineKit, notebook), matchCount: 2, totalCount: 2))
        )
    }

    @Test("A failed fetch shows an error that tells the user to retry")
    func failedFetchShowsAnError() async {
        let viewModel = makeViewModel(.failing())
        await viewModel.onAppear()
        #expect(viewModel.state == .error("The catalog could not be loaded. Please try again."))
    }

    @Test("Retrying after a failure shows loading again, then the catalog")
    func retryReloads() async throws {
        let suspension = Suspension<[Product]>()
        let getProducts = GetProductsUseCaseMock { call in
            if call == 0 { throw TestError.unavailable }
            return try await suspension.value()
        }
        let viewModel = makeViewModel(getProducts)
        await viewModel.onAppear()
        #expect(viewModel.state.value == nil)

        let retrying = Task {
            await viewModel.handle(try IntentMessage(name: "onTappedRetry").decode(as: ProductsViewModel.Intent.self))
        }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)
        suspension.resume(returning: [engineKit])
        try await retrying.value
        #expect(viewModel.state.value?.products == rows(engineKit))
        #expect(getProducts.callCount == 2)
    }

    @Test("Filtering by name narrows the list and keeps the total")
    func filteringNarrowsTheList() async throws {
        let viewModel = makeViewModel(.returning([engineKit, notebook]))
        await viewModel.onAppear()

        let intent = try IntentMessage(name: "onChangedFilter", arguments: ["text": " NOTE "])
            .decode(as: ProductsViewModel.Intent.self)
        await viewModel.handle(intent)

        #expect(
            viewModel.state == .loaded(.init(filter: " NOTE ", products: rows(notebook), matchCount: 1, totalCount: 2))
        )
    }

    @Test("Clearing the filter shows every product again")
    func clearingTheFilter() async {
        let viewModel = makeViewModel(.returning([engineKit, notebook]))
        await viewModel.onAppear()
        viewModel.onChangedFilter("engine")
        viewModel.onChangedFilter("")
        #expect(viewModel.state.value?.products == rows(engineKit, notebook))
    }

    @Test("A filter typed while the catalog loads applies once it has loaded")
    func filterBeforeLoadingApplies() async {
        let suspension = Suspension<[Product]>()
        let viewModel = makeViewModel(.suspended(suspension))
        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()

        viewModel.onChangedFilter("engine")
        #expect(viewModel.state == .loading)

        suspension.resume(returning: [engineKit, notebook])
        await appearing.value
        #expect(viewModel.state.value?.products == rows(engineKit))
        #expect(viewModel.state.value?.filter == "engine")
    }

    @Test("Tapping a product navigates to its detail screen")
    func tappingAProductNavigates() async throws {
        let router = Router<ProductsRoute>()
        let viewModel = makeViewModel(.returning([engineKit]), router: router)
        await viewModel.onAppear()

        let intent = try IntentMessage(name: "onTappedProduct", arguments: ["productID": "p1"])
            .decode(as: ProductsViewModel.Intent.self)
        await viewModel.handle(intent)

        #expect(router.commands == [.navigate(RouteRequest(id: "products.detail", parameters: ["productID": "p1"]))])
    }

    @Test("The filter survives a restart or a new build: restored before appearing, applied once loaded")
    func filterIsRestorable() async {
        let before = makeViewModel(.returning([engineKit, notebook]))
        await before.onAppear()
        before.onChangedFilter("card")
        let saved = before.restorableState

        let after = makeViewModel(.returning([engineKit, notebook]))
        after.restore(from: saved)
        await after.onAppear()

        #expect(saved == ProductsViewModel.RestorableState(filter: "card"))
        #expect(after.state.value?.filter == "card")
        #expect(after.state.value?.products == rows(notebook))
    }

    @Test("The loaded state reads well as JSON")
    func loadedStateJSON() async throws {
        let viewModel = makeViewModel(.returning([notebook]))
        await viewModel.onAppear()
        let json = try JSONValueEncoder().encode(viewModel.state).serializedString()
        #expect(
            json
                == #"{"status":"loaded","value":{"filter":"","products":[{"id":"p2","name":"Punched Card Notebook","#
                + #""category":"Stationery","price":"€14.50","isInStock":false}],"matchCount":1,"totalCount":1}}"#
        )
    }
}
