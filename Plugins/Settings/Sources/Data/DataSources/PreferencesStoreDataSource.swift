import NavHostKit

/// Reads and writes the stored preferences.
protocol PreferencesDataSourceProtocol: Sendable {
    /// The stored preferences, or `nil`.
    func preferences() async throws -> PreferencesDTO?
    /// Stores `preferences`.
    func savePreferences(_ preferences: PreferencesDTO) async throws
    /// Removes the stored preferences.
    func removePreferences() async throws
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

    func savePreferences(_ preferences: PreferencesDTO) async throws {
        try await store.save(preferences, forKey: Self.key)
    }

    func removePreferences() async throws {
        try await store.removeValue(forKey: Self.key)
    }
}
