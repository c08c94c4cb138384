/// Where the user's preferences are kept.
protocol PreferencesRepositoryProtocol: Sendable {
    /// The stored preferences, or `nil` when the user never saved any.
    func fetchPreferences() async throws -> Preferences?
    /// Makes `change` to the stored preferences (to the defaults when none are stored) and returns them as stored.
    ///
    /// The read and the write are one step: two changes made at once, from one screen or from two sessions' screens,
    /// both stay, and the last one made decides a preference both change. It runs on the caller's actor until it
    /// reaches the store (`nonisolated(nonsending)`, like the use case and the data source): changes a screen makes
    /// one after the other are made in that order, and answered in it.
    nonisolated(nonsending) func changePreferences(_ change: PreferenceChange) async throws -> Preferences
    /// Forgets the stored preferences; on the caller's actor until the store too, so that a reset and a change the
    /// screen makes after it reach the store in that order.
    nonisolated(nonsending) func removePreferences() async throws
}
