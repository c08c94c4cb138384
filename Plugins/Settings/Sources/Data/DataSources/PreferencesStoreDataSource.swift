import NavHostKit

/// Reads and writes the stored preferences.
protocol PreferencesDataSourceProtocol: Sendable {
    /// The stored preferences, or `nil`.
    func preferences() async throws -> PreferencesDTO?
    /// Changes the stored preferences (`nil` when none are stored) with `change`, in one step with their read, and
    /// returns them as stored.
    nonisolated(nonsending) func updatePreferences(_ change: @Sendable (inout PreferencesDTO?) -> Void) async throws
        -> PreferencesDTO?
    /// Removes the stored preferences.
    nonisolated(nonsending) func removePreferences() async throws
}

/// Keeps the preferences in the feature's durable key-value store, under one key: `preferences`.
final class PreferencesStoreDataSource: PreferencesDataSourceProtocol {

    // MARK: Private Properties

    private let store: any KeyValueStore

    // MARK: Public Properties

    /// The key the preferences are stored under.
    static let key = "preferences"

    // MARK: Initialization

    init(store: any KeyValueStore) {
        self.store = store
    }

    // MARK: Public Functions

    func preferences() async throws -> PreferencesDTO? {
        try await store.load(PreferencesDTO.self, forKey: Self.key)
    }

    nonisolated(nonsending) func updatePreferences(_ change: @Sendable (inout PreferencesDTO?) -> Void) async throws
        -> PreferencesDTO?
    {
        try await store.update(PreferencesDTO.self, forKey: Self.key, change)
    }

    nonisolated(nonsending) func removePreferences() async throws {
        // Through `updateValue`, which runs on this caller's actor until the store (`removeValue` leaves it for
        // Swift's global executor first): a change made after the reset cannot reach the store before it.
        _ = try await store.updateValue(forKey: Self.key) { _ in nil }
    }
}
