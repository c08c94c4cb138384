import Logging

/// Turns logger metadata into ordered `key`/`value` text pairs, for handlers that write flat fields.
enum LogMetadataFlattening {
    /// The metadata a handler writes for one event: its own, then the provider's, then the event's (a later source
    /// wins a key), flattened: a dictionary's entries become `parent.child` keys, an array its description. Pairs
    /// are sorted by key.
    static func pairs(
        handler: Logger.Metadata,
        provider: Logger.MetadataProvider?,
        event: Logger.Metadata?
    ) -> [(key: String, value: String)] {
        var merged = handler
        if let provided = provider?.get() { merged.merge(provided) { _, new in new } }
        if let event { merged.merge(event) { _, new in new } }
        var pairs: [(key: String, value: String)] = []
        for (key, value) in merged { flatten(value, key: key, into: &pairs) }
        return pairs.sorted { $0.key < $1.key }
    }

    private static func flatten(
        _ value: Logger.Metadata.Value,
        key: String,
        into pairs: inout [(key: String, value: String)]
    ) {
        switch value {
        case .string(let text):
            pairs.append((key, text))
        case .stringConvertible(let convertible):
            pairs.append((key, convertible.description))
        case .array(let values):
            pairs.append((key, "[\(values.map(\.description).joined(separator: ", "))]"))
        case .dictionary(let entries):
            for (childKey, childValue) in entries { flatten(childValue, key: "\(key).\(childKey)", into: &pairs) }
        }
    }
}
