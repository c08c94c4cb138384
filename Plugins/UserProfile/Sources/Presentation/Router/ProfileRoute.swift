import NavHostKit

/// The UserProfile feature's screens.
///
/// | case | wire ID | parameters |
/// |---|---|---|
/// | `.user(userID:)` | `profile.user` | `{"userID": "u1"}` |
/// | `.edit(userID:)` | `profile.edit` | `{"userID": "u1"}` |
enum ProfileRoute: Route {
    static let namespace = "profile"

    /// A user's profile.
    case user(userID: String)
    /// The form that changes a user's name and email address.
    case edit(userID: String)
}
