/// Gives the user's preferences.
protocol GetPreferencesUseCaseProtocol: Sendable {
    /// The stored preferences, or ``Preferences/defaults`` when the user never saved any.
    func execute() async throws -> Preferences
}

/// Gives the stored preferences, or the defaults.
final class GetPreferencesUseCase: GetPreferencesUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any PreferencesRepositoryProtocol

    // MARK: Initialization

    init(repository: any PreferencesRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    func execute() async throws -> Preferences {
        try await repository.fetchPreferences() ?? .defaults
    }
}
