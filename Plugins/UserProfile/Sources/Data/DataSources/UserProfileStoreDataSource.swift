import NavHostKit

/// Reads and writes stored profiles.
protocol UserProfileDataSourceProtocol: Sendable {
    /// The stored profile of the user `id`, or `nil`.
    func user(id: String) async throws -> UserProfileDTO?
    /// Stores `user` under its ID.
    func saveUser(_ user: UserProfileDTO) async throws
    /// The version of the seed users written to this store, or `nil` when none were.
    func seedVersion() async throws -> Int?
    /// Records that the seed users of `version` were written.
    func setSeedVersion(_ version: Int) async throws
}

/// Keeps profiles in the feature's durable key-value store, one key per user.
///
/// | key | value |
/// |---|---|
/// | `users/<id>` | a ``UserProfileDTO`` |
/// | `users.seedVersion` | the version of the seed users written, like `1` |
final class UserProfileStoreDataSource: UserProfileDataSourceProtocol {

    // MARK: Private Properties

    private let store: any KeyValueStore

    // MARK: Initialization

    init(store: any KeyValueStore) {
        self.store = store
    }

    // MARK: Public Functions

    func user(id: String) async throws -> UserProfileDTO? {
        try await store.load(UserProfileDTO.self, forKey: Self.key(forUser: id))
    }

    func saveUser(_ user: UserProfileDTO) async throws {
        try await store.save(user, forKey: Self.key(forUser: user.id))
    }

    func seedVersion() async throws -> Int? {
        try await store.load(Int.self, forKey: Self.seedVersionKey)
    }

    func setSeedVersion(_ version: Int) async throws {
        try await store.save(version, forKey: Self.seedVersionKey)
    }

    /// The key a user's profile is stored under.
    static func key(forUser id: String) -> String { "users/\(id)" }

    /// The key the version of the seed users is stored under.
    static let seedVersionKey = "users.seedVersion"
}
