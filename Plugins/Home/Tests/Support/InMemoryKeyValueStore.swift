import NavHostJSON
import NavHostKit

/// The host's durable store, in memory: what a `*RepositoryImpl` persists to in tests.
///
/// A test can make every call fail, to play a store that is unreachable for a while.
actor InMemoryKeyValueStore: KeyValueStore {
    /// The stored values by key.
    private(set) var values: [String: JSONValue]
    /// The keys written, oldest first.
    private(set) var writes: [String] = []
    private var failure: (any Error)?

    init(_ values: [String: JSONValue] = [:]) {
        self.values = values
    }

    /// Makes every later call throw `error`, or work again when it is `nil`.
    func failEveryCall(with error: (any Error)?) {
        failure = error
    }

    func value(forKey key: String) throws -> JSONValue? {
        if let failure { throw failure }
        return values[key]
    }

    func setValue(_ value: JSONValue, forKey key: String) throws {
        if let failure { throw failure }
        values[key] = value
        writes.append(key)
    }

    func removeValue(forKey key: String) throws {
        if let failure { throw failure }
        values[key] = nil
    }
}
