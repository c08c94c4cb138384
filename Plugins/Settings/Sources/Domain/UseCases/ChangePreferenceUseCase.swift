/// Changes one of the user's preferences, so that it survives a restart.
protocol ChangePreferenceUseCaseProtocol: Sendable {
    /// Makes `change` to the stored preferences and returns them as stored: with every change made before it, on
    /// this screen or on another session's.
    nonisolated(nonsending) func execute(_ change: PreferenceChange) async throws -> Preferences
}

/// Makes the change through the repository, in one step with the read of what it changes.
final class ChangePreferenceUseCase: ChangePreferenceUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any PreferencesRepositoryProtocol

    // MARK: Initialization

    init(repository: any PreferencesRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    nonisolated(nonsending) func execute(_ change: PreferenceChange) async throws -> Preferences {
        try await repository.changePreferences(change)
    }
}
