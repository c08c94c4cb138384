/// Preferences as they are stored: `{"theme":"dark","notificationsEnabled":true,"language":"fr"}`.
///
/// Theme and language are kept as text, so that a value this build does not know (written by a newer one) falls
/// back to the default instead of losing every preference.
struct PreferencesDTO: Codable, Equatable, Sendable {
    let theme: String
    let notificationsEnabled: Bool
    let language: String

    init(theme: String, notificationsEnabled: Bool, language: String) {
        self.theme = theme
        self.notificationsEnabled = notificationsEnabled
        self.language = language
    }

    /// The stored form of `preferences`.
    init(_ preferences: Preferences) {
        self.init(
            theme: preferences.theme.rawValue,
            notificationsEnabled: preferences.notificationsEnabled,
            language: preferences.language.rawValue
        )
    }

    /// The preferences as the domain sees them.
    func toDomain() -> Preferences {
        Preferences(
            theme: Theme(rawValue: theme) ?? Preferences.defaults.theme,
            notificationsEnabled: notificationsEnabled,
            language: Language(rawValue: language) ?? Preferences.defaults.language
        )
    }
}
