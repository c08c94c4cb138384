import NavHostJSON
import NavHostKit

/// Reads the catalog the plugin ships.
protocol ProductCatalogDataSourceProtocol: Sendable {
    /// The whole catalog, read afresh.
    func loadCatalog() async throws -> ProductCatalogDTO
}

/// Why the catalog file could not be used.
enum ProductCatalogError: Error, Equatable, Sendable {
    /// The file is missing or cannot be read.
    case unreadable(resource: String, reason: String)
    /// The file is not the JSON the plugin expects.
    case malformed(resource: String, reason: String)
}

/// Reads `products.json` from the resources the plugin ships (`plugin.json` lists it).
///
/// The file is read on every load, so an operator who replaces it sees the change on the next visit to the catalog.
final class ProductCatalogFileDataSource: ProductCatalogDataSourceProtocol {

    // MARK: Private Properties

    private let resources: any PluginResources
    private let clock: any Clock<Duration>
    private let logger: FeatureLogger

    // MARK: Public Properties

    /// The name of the catalog file among the resources, as `plugin.json` lists it.
    static let fileName = "products.json"

    // MARK: Initialization

    /// Reads the catalog from `resources`, timing each read with `clock`.
    init(resources: any PluginResources, clock: any Clock<Duration>, logger: FeatureLogger) {
        self.resources = resources
        self.clock = clock
        self.logger = logger
    }

    // MARK: Public Functions

    func loadCatalog() async throws -> ProductCatalogDTO {
        var catalog = ProductCatalogDTO(products: [])
        let elapsed = try clock.measure {
            catalog = try decodeCatalog(from: readFile())
        }
        logger.debug(
            "products.catalog.read",
            metadata: ["file": "\(Self.fileName)", "products": "\(catalog.products.count)", "duration": "\(elapsed)"]
        )
        return catalog
    }
}

// MARK: - Private Functions

private extension ProductCatalogFileDataSource {
    func readFile() throws -> [UInt8] {
        do {
            return try resources.contents(of: Self.fileName)
        } catch {
            logger.error("products.catalog.unreadable", metadata: ["file": "\(Self.fileName)", "error": "\(error)"])
            throw ProductCatalogError.unreadable(resource: Self.fileName, reason: error.reason)
        }
    }

    func decodeCatalog(from bytes: [UInt8]) throws -> ProductCatalogDTO {
        do {
            return try JSONValueDecoder().decode(ProductCatalogDTO.self, from: JSONParser().parse(bytes))
        } catch {
            logger.error("products.catalog.malformed", metadata: ["file": "\(Self.fileName)", "error": "\(error)"])
            throw ProductCatalogError.malformed(resource: Self.fileName, reason: "\(error)")
        }
    }
}
