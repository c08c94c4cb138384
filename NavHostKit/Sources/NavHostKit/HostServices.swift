public import NavHostJSON

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
public protocol KeyValueStore: Sendable {
    /// The value stored under `key`, or `nil`.
    func value(forKey key: String) async throws -> JSONValue?
    /// Stores `value` under `key`, replacing what was there.
    func setValue(_ value: JSONValue, forKey key: String) async throws
    /// Removes the value under `key`, if any.
    func removeValue(forKey key: String) async throws
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
}
