import FoundationEssentials
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
    case unreadable(path: String, reason: String)
    /// The file is not the JSON the plugin expects.
    case malformed(path: String, reason: String)
}

/// Reads `products.json` from the folder the daemon puts the plugin's resources in.
///
/// The file is read on every load, so an operator who replaces it sees the change on the next visit to the catalog.
final class ProductCatalogFileDataSource: ProductCatalogDataSourceProtocol {

    // MARK: Private Properties

    private let path: String
    private let clock: any Clock<Duration>
    private let logger: FeatureLogger

    // MARK: Public Properties

    /// The name of the catalog file inside the resource folder, as `plugin.json` lists it.
    static let fileName = "products.json"

    // MARK: Initialization

    /// Reads the catalog from `directory`, timing each read with `clock`.
    init(directory: String, clock: any Clock<Duration>, logger: FeatureLogger) {
        self.path = directory.hasSuffix("/") ? directory + Self.fileName : "\(directory)/\(Self.fileName)"
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
            metadata: ["path": "\(path)", "products": "\(catalog.products.count)", "duration": "\(elapsed)"]
        )
        return catalog
    }
}

// MARK: - Private Functions

private extension ProductCatalogFileDataSource {
    func readFile() throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            logger.error("products.catalog.unreadable", metadata: ["path": "\(path)", "error": "\(error)"])
            throw ProductCatalogError.unreadable(path: path, reason: "\(error)")
        }
    }

    func decodeCatalog(from data: Data) throws -> ProductCatalogDTO {
        do {
            return try JSONValueDecoder().decode(ProductCatalogDTO.self, from: JSONParser().parse(data))
        } catch {
            logger.error("products.catalog.malformed", metadata: ["path": "\(path)", "error": "\(error)"])
            throw ProductCatalogError.malformed(path: path, reason: "\(error)")
        }
    }
}
