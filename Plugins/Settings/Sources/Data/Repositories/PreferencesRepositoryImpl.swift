import NavHostKit

/// The user's preferences, kept in the host's durable store.
final class PreferencesRepositoryImpl: PreferencesRepositoryProtocol {

    // MARK: Private Properties

    private let dataSource: any PreferencesDataSourceProtocol
    private let logger: FeatureLogger

    // MARK: Initialization

    init(dataSource: any PreferencesDataSourceProtocol, logger: FeatureLogger) {
        self.dataSource = dataSource
        self.logger = logger
    }

    // MARK: Public Functions

    func fetchPreferences() async throws -> Preferences? {
        try await dataSource.preferences()?.toDomain()
    }

    nonisolated(nonsending) func changePreferences(_ change: PreferenceChange) async throws -> Preferences {
        let stored = try await dataSource.updatePreferences { stored in
            var preferences = stored?.toDomain() ?? .defaults
            change.apply(to: &preferences)
            stored = PreferencesDTO(preferences)
        }
        let preferences = stored?.toDomain() ?? .defaults
        logger.debug(
            "settings.saved",
            metadata: [
                "theme": "\(preferences.theme.rawValue)",
                "notificationsEnabled": "\(preferences.notificationsEnabled)",
                "language": "\(preferences.language.rawValue)",
            ]
        )
        return preferences
    }

    nonisolated(nonsending) func removePreferences() async throws {
        try await dataSource.removePreferences()
        logger.debug("settings.reset")
    }
}
