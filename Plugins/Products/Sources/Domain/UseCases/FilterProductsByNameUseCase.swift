/// Narrows a list of products to those whose name matches what the customer typed.
protocol FilterProductsByNameUseCaseProtocol: Sendable {
    /// The products of `products` whose name contains `text`, in their order; all of them when `text` is blank.
    func execute(_ products: [Product], name text: String) -> [Product]
}

/// Matches names the way a customer expects: ignoring case and the spaces around what they typed.
final class FilterProductsByNameUseCase: FilterProductsByNameUseCaseProtocol {

    // MARK: Initialization

    init() {}

    // MARK: Public Functions

    func execute(_ products: [Product], name text: String) -> [Product] {
        let query = normalize(text)
        guard !query.isEmpty else { return products }
        return products.filter { normalize($0.name).contains(query) }
    }
}

// MARK: - Private Functions

private extension FilterProductsByNameUseCase {
    func normalize(_ text: String) -> String {
        let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        return String(trimmed).lowercased()
    }
}
