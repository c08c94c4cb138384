import NavHostKit

/// Reads and writes the stored session.
protocol SessionDataSourceProtocol: Sendable {
    /// The stored session, or `nil`.
    func session() async throws -> SessionDTO?
    /// Stores `session`.
    func saveSession(_ session: SessionDTO) async throws
}

/// Keeps the session in the feature's durable key-value store, under one key: `session`.
final class SessionStoreDataSource: SessionDataSourceProtocol {

    // MARK: Private Properties

    private let store: any KeyValueStore

    // MARK: Public Properties

    /// The key the session is stored under.
    static let key = "session"

    // MARK: Initialization

    init(store: any KeyValueStore) {
        self.store = store
    }

    // MARK: Public Functions

    func session() async throws -> SessionDTO? {
        try await store.load(SessionDTO.self, forKey: Self.key)
    }

    func saveSession(_ session: SessionDTO) async throws {
        try await store.save(session, forKey: Self.key)
    }
}
