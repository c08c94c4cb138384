/// Why the catalog cannot give a product.
enum ProductsError: Error, Equatable, Sendable {
    /// No listed product has this ID: it never existed, or it was withdrawn from sale.
    case productNotFound(productID: String)
}
