/// A product of the catalog, as the business sees it.
struct Product: Identifiable, Equatable, Sendable {
    /// The product's catalog ID, like `p1`.
    let id: String
    /// The product's name.
    let name: String
    /// A few sentences about the product.
    let description: String
    /// The shelf the product is on, like `Books`.
    let category: String
    /// What one unit costs.
    let price: Money
    /// How many units are available.
    let stock: Int
    /// Whether the product is offered for sale; a withdrawn product stays in the data but is never shown.
    let isListed: Bool
    /// Who sells the product.
    let seller: Seller

    /// Whether at least one unit can be bought now.
    var isInStock: Bool { stock > 0 }
}

/// An amount of money in a currency's minor unit, so that no price is ever rounded.
struct Money: Equatable, Sendable {
    /// The amount in hundredths of the currency unit: `1999` is 19.99.
    let amountInCents: Int
    /// The ISO 4217 currency code, like `EUR`.
    let currency: String
}

/// The user who sells a product; their profile belongs to the UserProfile feature.
struct Seller: Equatable, Sendable {
    /// The seller's user ID, like `u2`.
    let id: String
    /// The seller's display name.
    let name: String
}
