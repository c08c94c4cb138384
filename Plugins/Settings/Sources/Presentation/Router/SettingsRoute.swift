import NavHostKit

/// The Settings feature's screens.
///
/// | case | wire ID | parameters |
/// |---|---|---|
/// | `.main` | `settings.main` | none |
enum SettingsRoute: Route {
    static let namespace = "settings"

    /// The user's preferences.
    case main
}
