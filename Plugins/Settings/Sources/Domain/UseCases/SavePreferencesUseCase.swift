/// Keeps the user's preferences, so that they survive a restart.
protocol SavePreferencesUseCaseProtocol: Sendable {
    /// Stores `preferences` durably; returns once they are stored.
    func execute(_ preferences: Preferences) async throws
}

/// Stores the preferences through the repository.
final class SavePreferencesUseCase: SavePreferencesUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any PreferencesRepositoryProtocol

    // MARK: Initialization

    init(repository: any PreferencesRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute(_ preferences: Preferences) async throws {
        try await repository.savePreferences(preferences)
    }
}
