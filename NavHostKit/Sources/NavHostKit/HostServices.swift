public import NavHostJSON
internal import Synchronization

/// What the daemon lends each feature's composition root.
///
/// Repositories and use cases take what they need from here through their `init`; nothing reaches for a global.
/// Tests pass in-memory versions (see `NavHostTesting`).
public struct HostServices: Sendable {
    /// A logger whose metadata already names the feature (`navhost.plugin`).
    public var logger: FeatureLogger
    /// The clock use cases should measure and sleep with, so tests can control time.
    public var clock: any Clock<Duration>
    /// Durable key-value storage private to the feature.
    public var store: any KeyValueStore
    /// The folder holding the files the plugin ships beside its library (its manifest lists them as `resources`).
    public var resourceDirectory: String
    /// Where random numbers come from, so tests and replays can make them repeatable. Since NavHostKit 2.1.0.
    public var random: any RandomSource
    /// Which of the features the manifest lists as dependencies are loaded now: the hard ones always, the optional
    /// ones as they come and go. Since NavHostKit 2.2.0.
    public var optionalFeatures: OptionalFeatures

    /// Creates the services, with `optionalFeatures` telling which optional dependencies are loaded.
    ///
    /// - Since: NavHostKit 2.2.0.
    public init(
        logger: FeatureLogger,
        clock: any Clock<Duration>,
        store: any KeyValueStore,
        resourceDirectory: String,
        random: any RandomSource,
        optionalFeatures: OptionalFeatures
    ) {
        self.logger = logger
        self.clock = clock
        self.store = store
        self.resourceDirectory = resourceDirectory
        self.random = random
        self.optionalFeatures = optionalFeatures
    }

    /// Creates the services, drawing random numbers from `random`, with no optional dependency loaded.
    ///
    /// - Since: NavHostKit 2.1.0.
    public init(
        logger: FeatureLogger,
        clock: any Clock<Duration>,
        store: any KeyValueStore,
        resourceDirectory: String,
        random: any RandomSource
    ) {
        self.init(
            logger: logger,
            clock: clock,
            store: store,
            resourceDirectory: resourceDirectory,
            random: random,
            optionalFeatures: OptionalFeatures()
        )
    }

    /// Creates the services, drawing random numbers from the system's generator.
    public init(logger: FeatureLogger, clock: any Clock<Duration>, store: any KeyValueStore, resourceDirectory: String)
    {
        self.init(
            logger: logger,
            clock: clock,
            store: store,
            resourceDirectory: resourceDirectory,
            random: SystemRandomSource()
        )
    }
}

/// Durable storage of JSON values by key, private to one feature; the place a `*RepositoryImpl` persists to.
///
/// A write returns once the value is durable.
///
/// Intents of one screen can run at the same time, and the screens of every session share their feature's store: a
/// change made as a read, then a write of what was read and changed, can overwrite a change another intent wrote in
/// between, which that intent's caller was told is saved. Make such a change with ``update(_:forKey:_:)`` (or
/// ``updateValue(forKey:_:)``), which reads and writes as one step.
public protocol KeyValueStore: Sendable {
    /// The value stored under `key`, or `nil`.
    func value(forKey key: String) async throws -> JSONValue?
    /// Stores `value` under `key`, replacing what was there.
    func setValue(_ value: JSONValue, forKey key: String) async throws
    /// Removes the value under `key`, if any.
    func removeValue(forKey key: String) async throws
    /// Replaces the value under `key` with what `transform` makes of it, as one step, and returns the value stored
    /// now: no other write of the store comes between the read and the write, so each of two updates made at the same
    /// time sees the other's result or is seen by it.
    ///
    /// `transform` gets the stored value, or `nil` when there is none, and returns the new value, or `nil` to remove
    /// it. When it throws, nothing is written and the error is rethrown.
    ///
    /// The daemon's store and `NavHostTesting`'s `InMemoryKeyValueStore` do it as one step. A store that does not
    /// implement it gets a default that reads, then writes, with no such guarantee.
    ///
    /// It runs on its caller's actor until it reaches the store (`nonisolated(nonsending)`): updates a ViewModel makes
    /// one after the other reach a store that is an actor in that order.
    ///
    /// - Since: NavHostKit 2.2.0.
    nonisolated(nonsending) func updateValue(
        forKey key: String,
        _ transform: @Sendable (JSONValue?) throws -> JSONValue?
    ) async throws -> JSONValue?
}

extension KeyValueStore {
    /// Decodes the value stored under `key` as `type`, or returns `nil` when there is none.
    public func load<T: Decodable>(_ type: T.Type, forKey key: String) async throws -> T? {
        guard let json = try await value(forKey: key) else { return nil }
        return try JSONValueDecoder().decode(type, from: json)
    }

    /// Encodes `value` and stores it under `key`.
    public func save(_ value: some Encodable, forKey key: String) async throws {
        try await setValue(JSONValueEncoder().encode(value), forKey: key)
    }

    /// Changes the value of type `type` stored under `key` as one step (``updateValue(forKey:_:)``), and returns
    /// it as stored now.
    ///
    /// `change` gets the stored value, or `nil` when there is none, and changes it in place; setting it to `nil`
    /// removes it.
    ///
    /// ```swift
    /// let items = try await store.update([ItemDTO].self, forKey: "items") { items in
    ///     items = (items ?? []) + [ItemDTO(id: "\((items ?? []).count + 1)", title: title)]
    /// }
    /// ```
    ///
    /// - Throws: What `change` throws, or the decoding of a stored value that is not a `T`; nothing is written then.
    /// - Since: NavHostKit 2.2.0.
    public nonisolated(nonsending) func update<T: Codable & Sendable>(
        _ type: T.Type,
        forKey key: String,
        _ change: @Sendable (inout T?) throws -> Void
    ) async throws -> T? {
        // The value `change` made, as it made it: decoding the stored JSON again could fail for a type that does not
        // round-trip, after the write, and answer an error for a change that is on disk.
        let made = Mutex<T?>(nil)
        _ = try await updateValue(forKey: key) { json in
            var value = try json.map { try JSONValueDecoder().decode(T.self, from: $0) }
            try change(&value)
            let encoded = try value.map { try JSONValueEncoder().encode($0) }
            made.withLock { $0 = value }
            return encoded
        }
        return made.withLock { $0 }
    }

    /// A read, then a write: for stores written before NavHostKit 2.2.0, which do not implement it as one step.
    ///
    /// - Since: NavHostKit 2.2.0.
    public nonisolated(nonsending) func updateValue(
        forKey key: String,
        _ transform: @Sendable (JSONValue?) throws -> JSONValue?
    ) async throws -> JSONValue? {
        let updated = try transform(try await value(forKey: key))
        if let updated {
            try await setValue(updated, forKey: key)
        } else {
            try await removeValue(forKey: key)
        }
        return updated
    }
}
