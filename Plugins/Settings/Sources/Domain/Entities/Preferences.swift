/// The user's preferences for the whole app.
struct Preferences: Equatable, Sendable {
    /// How the app looks.
    var theme: Theme
    /// Whether the app may send notifications.
    var notificationsEnabled: Bool
    /// The language the app speaks.
    var language: Language

    /// What a user who never changed anything gets: the system's theme, notifications on, English.
    static let defaults = Preferences(theme: .system, notificationsEnabled: true, language: .english)
}

/// How the app looks. On the wire, the raw value: `"dark"`.
enum Theme: String, CaseIterable, Codable, Sendable {
    case light
    case dark
    /// Follows the device's setting.
    case system
}

/// A language the app is translated into. On the wire, its ISO 639-1 code: `"fr"`.
enum Language: String, CaseIterable, Codable, Sendable {
    case english = "en"
    case french = "fr"
    case german = "de"
    case spanish = "es"
    case japanese = "ja"
}
