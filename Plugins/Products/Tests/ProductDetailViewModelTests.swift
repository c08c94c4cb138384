import NavHostJSON
import NavHostKit
import NavHostTesting
import Testing

@testable import ProductsFeature

@MainActor
@Suite("The product screen", .timeLimit(.minutes(1)))
struct ProductDetailViewModelTests {
    private let wire = Product.fixture(
        id: "p3",
        name: "Nanosecond Wire",
        category: "Curiosities",
        price: Money(amountInCents: 500, currency: "USD"),
        stock: 0,
        seller: Seller(id: "u2", name: "Grace Hopper")
    )

    private func makeViewModel(
        _ getProduct: GetProductUseCaseMock,
        productID: String = "p3",
        router: Router<ProductsRoute> = Router()
    ) -> ProductDetailViewModel {
        ProductDetailViewModel(productID: productID, getProductUseCase: getProduct, router: router, logger: .silent)
    }

    private var wireDetail: ProductDetailViewModel.Detail {
        ProductDetailViewModel.Detail(
            id: "p3",
            name: "Nanosecond Wire",
            description: "A desk model of Nanosecond Wire.",
            category: "Curiosities",
            price: "$5.00",
            availability: "Out of stock",
            isInStock: false,
            seller: .init(id: "u2", name: "Grace Hopper")
        )
    }

    @Test("Appearing shows loading while the product is fetched, then the product")
    func appearingLoadsTheProduct() async throws {
        let suspension = Suspension<Product>()
        let getProduct = GetProductUseCaseMock.suspended(suspension)
        let viewModel = makeViewModel(getProduct)

        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()
        #expect(viewModel.state == .loading)

        suspension.resume(returning: wire)
        await appearing.value
        #expect(viewModel.state == .loaded(wireDetail))
        #expect(getProduct.requestedIDs == ["p3"])
    }

    @Test("An unknown product shows that it is not available")
    func unknownProduct() async throws {
        let viewModel = makeViewModel(.failing(ProductsError.productNotFound(productID: "p9")), productID: "p9")
        await viewModel.onAppear()
        #expect(viewModel.state == .error("This product is not available."))
    }

    @Test("A failed fetch shows an error, and retrying loads the product")
    func retryAfterFailure() async throws {
        let wire = self.wire
        let viewModel = makeViewModel(
            GetProductUseCaseMock { call in
                guard call > 0 else { throw TestError.unavailable }
                return wire
            }
        )
        await viewModel.onAppear()
        #expect(viewModel.state == .error("The product could not be loaded. Please try again."))

        try await viewModel.handle(
            try IntentMessage(name: "onTappedRetry").decode(as: ProductDetailViewModel.Intent.self)
        )
        #expect(viewModel.state == .loaded(wireDetail))
    }

    @Test("Tapping the seller opens their profile in the UserProfile feature")
    func tappingTheSellerOpensTheirProfile() async throws {
        let router = Router<ProductsRoute>()
        let viewModel = makeViewModel(.returning(wire), router: router)
        await viewModel.onAppear()

        try await viewModel.handle(
            try IntentMessage(name: "onTappedSeller").decode(as: ProductDetailViewModel.Intent.self)
        )

        #expect(router.commands == [.navigate(RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))])
    }

    @Test("Tapping the seller with no product loaded fails, and goes nowhere")
    func tappingTheSellerWithoutAProduct() async throws {
        let router = Router<ProductsRoute>()
        let viewModel = makeViewModel(.failing(), router: router)
        await viewModel.onAppear()
        await #expect(throws: LoadCompletion.NotLoaded.self) { try await viewModel.onTappedSeller() }
        #expect(router.commands.isEmpty)
    }

    @Test("Tapping the seller while the product loads waits for it, then opens their profile")
    func tappingTheSellerWhileLoading() async throws {
        let suspension = Suspension<Product>()
        let router = Router<ProductsRoute>()
        let viewModel = makeViewModel(.suspended(suspension), router: router)
        let appearing = Task { await viewModel.onAppear() }
        await suspension.untilCalled()

        let tapping = Task { try await viewModel.onTappedSeller() }
        await Task.yield()
        #expect(router.commands.isEmpty)
        suspension.resume(returning: wire)
        await appearing.value
        try await tapping.value
        #expect(router.commands == [.navigate(RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))])
    }

    @Test("The loaded state reads well as JSON")
    func loadedStateJSON() async throws {
        let viewModel = makeViewModel(.returning(wire))
        await viewModel.onAppear()
        let json = try JSONValueEncoder().encode(viewModel.state).serializedString()
        #expect(
            json
                == #"{"status":"loaded","value":{"id":"p3","name":"Nanosecond Wire","#
                + #""description":"A desk model of Nanosecond Wire.","category":"Curiosities","price":"$5.00","#
                + #""availability":"Out of stock","isInStock":false,"seller":{"id":"u2","name":"Grace Hopper"}}}"#
        )
    }
}
