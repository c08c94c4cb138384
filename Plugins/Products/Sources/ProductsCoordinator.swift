import NavHostKit

/// The Products feature's composition root: wires the catalog file, the repository and the use cases once, then
/// builds each screen's ViewModel in one `switch` over ``ProductsRoute``.
@MainActor
final class ProductsCoordinator: Coordinator {

    // MARK: Private Properties

    private let getProductsUseCase: any GetProductsUseCaseProtocol
    private let getProductUseCase: any GetProductUseCaseProtocol
    private let filterProductsByNameUseCase: any FilterProductsByNameUseCaseProtocol
    private let logger: FeatureLogger

    // MARK: Initialization

    /// Reads the catalog from `services.resources`, times reads with `services.clock`, logs to `services.logger`.
    init(services: HostServices) {
        let dataSource = ProductCatalogFileDataSource(
            resources: services.resources,
            clock: services.clock,
            logger: services.logger
        )
        let repository = ProductsRepositoryImpl(dataSource: dataSource)
        self.getProductsUseCase = GetProductsUseCase(repository: repository)
        self.getProductUseCase = GetProductUseCase(repository: repository)
        self.filterProductsByNameUseCase = FilterProductsByNameUseCase()
        self.logger = services.logger
    }

    // MARK: Public Functions

    func makeViewModel(for route: ProductsRoute, router: Router<ProductsRoute>) -> any ViewModel {
        switch route {
        case .list:
            ProductsViewModel(
                getProductsUseCase: getProductsUseCase,
                filterProductsByNameUseCase: filterProductsByNameUseCase,
                router: router,
                logger: logger
            )
        case .detail(let productID):
            ProductDetailViewModel(
                productID: productID,
                getProductUseCase: getProductUseCase,
                router: router,
                logger: logger
            )
        }
    }
}
