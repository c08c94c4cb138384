import NavHostKit

/// A feature's store as the catalog hands it to the feature (``FeatureCatalog``): the feature's own store, whose writes
/// from the work of an intent answered `IntentTimedOut` are refused.
///
/// The reply to a timed-out intent says that it did not finish: what it did until then stays, and nothing after.
/// Its work is cancelled, but a use case may go on regardless and write to its store later; that write would land
/// behind the client's back, as the navigation such work asks for would (the session drops that). So each write
/// notes itself on the screen task whose work makes it (``ScreenTask/current``, inherited by the tasks that work
/// starts): one that begins after the intent was given up on throws `CancellationError` and writes nothing, and the
/// caller of the intent is answered only once the writes that began before have ended (`Screen.startUntilClosed`). A
/// write made outside an intent's work (a task the feature detached, its coordinator's own) is not an intent's, and
/// goes through as before. Reads always do.
struct IntentGuardedStore: KeyValueStore {
    // MARK: Public Properties

    /// The feature's own store, which every write that goes through reaches.
    let base: any KeyValueStore

    // MARK: Initialization

    /// Guards the writes to `base`.
    init(_ base: any KeyValueStore) {
        self.base = base
    }

    // MARK: Public Functions

    func value(forKey key: String) async throws -> JSONValue? {
        try await base.value(forKey: key)
    }

    func setValue(_ value: JSONValue, forKey key: String) async throws {
        let task = try Self.beginWrite()
        defer { task?.endStoreWrite() }
        try await base.setValue(value, forKey: key)
    }

    func removeValue(forKey key: String) async throws {
        let task = try Self.beginWrite()
        defer { task?.endStoreWrite() }
        try await base.removeValue(forKey: key)
    }

    nonisolated(nonsending) func updateValue(
        forKey key: String,
        _ transform: @Sendable (JSONValue?) throws -> JSONValue?
    ) async throws -> JSONValue? {
        let task = try Self.beginWrite()
        defer { task?.endStoreWrite() }
        return try await base.updateValue(forKey: key, transform)
    }
}

// MARK: - Private Functions

extension IntentGuardedStore {
    /// Notes a write on the screen task whose work makes it, and returns that task; `nil` for a write outside a
    /// screen's work, or one not counted (``StoreWriteStart/uncounted``).
    ///
    /// - Throws: `CancellationError` when the task's intent was given up on.
    private static func beginWrite() throws -> ScreenTask? {
        guard let task = ScreenTask.current else { return nil }
        switch task.beginStoreWrite() {
        case .counted: return task
        // Its screen closed by another call, its caller waits for no write begun after the close: nothing to end.
        case .uncounted: return nil
        case .refused: throw CancellationError()
        }
    }
}

extension HostServices {
    /// These services with their store's writes guarded (``IntentGuardedStore``); a store guarded already is kept.
    func guardingStoreWrites() -> HostServices {
        guard !(store is IntentGuardedStore) else { return self }
        var services = self
        services.store = IntentGuardedStore(store)
        return services
    }
}
