public import NavHostKit

/// A ``KeyValueStore`` that keeps values in memory, for feature tests and previews.
///
/// It can be seeded, inspected, and told to fail, so a repository's error paths can be tested.
public actor InMemoryKeyValueStore: KeyValueStore {
    /// What the store holds, by key.
    public private(set) var values: [String: JSONValue]
    /// The keys written, oldest first.
    public private(set) var writes: [String] = []
    /// When set, every call throws it.
    public var failure: (any Error)?

    /// Creates a store holding `values`.
    public init(_ values: [String: JSONValue] = [:]) {
        self.values = values
    }

    public func value(forKey key: String) async throws -> JSONValue? {
        if let failure { throw failure }
        return values[key]
    }

    public func setValue(_ value: JSONValue, forKey key: String) async throws {
        if let failure { throw failure }
        values[key] = value
        writes.append(key)
    }

    public func removeValue(forKey key: String) async throws {
        if let failure { throw failure }
        values[key] = nil
    }

    /// Replaces the value under `key` with what `transform` makes of it, as one step (nothing else runs on the
    /// store in between), and returns it; records a write, as ``setValue(_:forKey:)`` does, when it stores a new value.
    public func updateValue(
        forKey key: String,
        _ transform: @Sendable (JSONValue?) throws -> JSONValue?
    ) async throws -> JSONValue? {
        if let failure { throw failure }
        let updated = try transform(values[key])
        // As the daemon's store: a value that does not change is not written, and a removal is no write.
        guard updated != values[key] else { return updated }
        values[key] = updated
        if updated != nil { writes.append(key) }
        return updated
    }

    /// Makes every later call throw `error`, to play a store that is unreachable for a while; `nil` ends it.
    public func failEveryCall(with error: (any Error)?) {
        failure = error
    }
}
