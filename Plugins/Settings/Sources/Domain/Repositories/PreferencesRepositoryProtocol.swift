/// Where the user's preferences are kept.
protocol PreferencesRepositoryProtocol: Sendable {
    /// The stored preferences, or `nil` when the user never saved any.
    func fetchPreferences() async throws -> Preferences?
    /// Stores `preferences`, replacing the earlier ones.
    func savePreferences(_ preferences: Preferences) async throws
    /// Forgets the stored preferences.
    func removePreferences() async throws
}
