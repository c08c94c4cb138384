/// One way into another feature that the root screen offers, shown only while that feature is loaded.
///
/// Its wire form is its raw value: Home's state is `{"tiles":["products","profile","settings"]}`.
enum HomeTile: String, CaseIterable, Encodable, Sendable {
    /// The catalog.
    case products
    /// The signed-in user's profile.
    case profile
    /// The preferences.
    case settings

    /// The feature that serves the tile's screen, as `plugin.json` lists it among Home's optional dependencies.
    var feature: String {
        switch self {
        case .products: "Products"
        case .profile: "UserProfile"
        case .settings: "Settings"
        }
    }

    /// The tiles of the features in `present`, in the order the screen shows them.
    static func tiles(for present: Set<String>) -> [HomeTile] {
        allCases.filter { present.contains($0.feature) }
    }
}
