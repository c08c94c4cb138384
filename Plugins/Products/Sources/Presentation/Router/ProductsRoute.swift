import NavHostKit

/// The Products feature's screens.
///
/// | case | wire ID | parameters |
/// |---|---|---|
/// | `.list` | `products.list` | none |
/// | `.detail(productID:)` | `products.detail` | `{"productID": "p1"}` |
enum ProductsRoute: Route {
    static let namespace = "products"

    /// The catalog.
    case list
    /// One product of the catalog.
    case detail(productID: String)
}
