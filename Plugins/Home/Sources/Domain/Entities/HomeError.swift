/// Why the root screen refused an intent.
enum HomeError: Error, Equatable, CustomStringConvertible {
    /// The tile's feature is not loaded, so the screen does not show it.
    case featureUnavailable(String)

    var description: String {
        switch self {
        case .featureUnavailable(let feature): "\(feature) is not loaded, so its tile is not shown"
        }
    }
}
