/// The catalog file, `products.json`, as it is written.
struct ProductCatalogDTO: Decodable, Sendable {
    /// Every product of the catalog, withdrawn ones included.
    let products: [ProductDTO]
}

/// One product of `products.json`.
struct ProductDTO: Decodable, Sendable {
    let id: String
    let name: String
    let description: String
    let category: String
    let price: PriceDTO
    let stock: Int
    let listed: Bool
    let seller: SellerDTO

    /// The product as the domain sees it.
    func toDomain() -> Product {
        Product(
            id: id,
            name: name,
            description: description,
            category: category,
            price: price.toDomain(),
            stock: max(stock, 0),
            isListed: listed,
            seller: seller.toDomain()
        )
    }
}

/// A price in `products.json`: `{"amountInCents": 1999, "currency": "EUR"}`.
struct PriceDTO: Decodable, Sendable {
    let amountInCents: Int
    let currency: String

    /// The price as the domain sees it.
    func toDomain() -> Money {
        Money(amountInCents: amountInCents, currency: currency)
    }
}

/// A product's seller in `products.json`: `{"id": "u2", "name": "Grace Hopper"}`.
struct SellerDTO: Decodable, Sendable {
    let id: String
    let name: String

    /// The seller as the domain sees them.
    func toDomain() -> Seller {
        Seller(id: id, name: name)
    }
}
