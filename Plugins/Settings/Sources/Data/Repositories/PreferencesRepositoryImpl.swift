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

    func savePreferences(_ preferences: Preferences) async throws {
        try await dataSource.savePreferences(PreferencesDTO(preferences))
        logger.debug(
            "settings.saved",
            metadata: [
                "theme": "\(preferences.theme.rawValue)",
                "notificationsEnabled": "\(preferences.notificationsEnabled)",
                "language": "\(preferences.language.rawValue)",
            ]
        )
    }

    func removePreferences() async throws {
        try await dataSource.removePreferences()
        logger.debug("settings.reset")
    }
}
