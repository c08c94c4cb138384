import NavHostKit

/// The Home feature's screens.
///
/// | case | wire ID | parameters |
/// |---|---|---|
/// | `.main` | `home.main` | none |
enum HomeRoute: Route {
    static let namespace = "home"

    /// The root screen.
    case main
}
