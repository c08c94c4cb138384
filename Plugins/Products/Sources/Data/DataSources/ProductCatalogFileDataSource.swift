import Glibc
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
    /// The file's bytes, read with the C library: Foundation's `Data(contentsOf:)` would bring about 1 MB of
    /// Foundation's pages into the daemon's resident memory for one small file (measured with `navhost-bench`'s idle RSS).
    func readFile() throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(errno: errno)
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    func unreadable(errno code: Int32) -> ProductCatalogError {
        let reason = String(cString: strerror(code))
        logger.error("products.catalog.unreadable", metadata: ["path": "\(path)", "error": "\(reason)"])
        return ProductCatalogError.unreadable(path: path, reason: reason)
    }

    func decodeCatalog(from bytes: [UInt8]) throws -> ProductCatalogDTO {
        do {
            return try JSONValueDecoder().decode(ProductCatalogDTO.self, from: JSONParser().parse(bytes))
        } catch {
            logger.error("products.catalog.malformed", metadata: ["path": "\(path)", "error": "\(error)"])
            throw ProductCatalogError.malformed(path: path, reason: "\(error)")
        }
    }
}
