/// One change the user makes to the preferences: the rest stays as stored.
enum PreferenceChange: Equatable, Sendable {
    case theme(Theme)
    case notificationsEnabled(Bool)
    case language(Language)

    /// Makes the change to `preferences`.
    func apply(to preferences: inout Preferences) {
        switch self {
        case .theme(let theme): preferences.theme = theme
        case .notificationsEnabled(let isEnabled): preferences.notificationsEnabled = isEnabled
        case .language(let language): preferences.language = language
        }
    }
}
