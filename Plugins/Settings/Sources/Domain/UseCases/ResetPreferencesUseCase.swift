/// Puts the user's preferences back to the defaults.
protocol ResetPreferencesUseCaseProtocol: Sendable {
    /// Forgets the stored preferences and returns what applies now: ``Preferences/defaults``.
    nonisolated(nonsending) func execute() async throws -> Preferences
}

/// Forgets the stored preferences, so that the defaults apply, including defaults changed by a later version.
final class ResetPreferencesUseCase: ResetPreferencesUseCaseProtocol {

    // MARK: Private Properties

    private let repository: any PreferencesRepositoryProtocol

    // MARK: Initialization

    init(repository: any PreferencesRepositoryProtocol) {
        self.repository = repository
    }

    // MARK: Public Functions

    nonisolated(nonsending) func execute() async throws -> Preferences {
        try await repository.removePreferences()
        return .defaults
    }
}
