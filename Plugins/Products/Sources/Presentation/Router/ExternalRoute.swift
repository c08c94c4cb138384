import NavHostKit

/// Screens of other features that this feature opens, addressed by wire ID so that it need not import them.
enum ExternalRoute {
    /// The profile of the user `userID`: the UserProfile feature's `profile.user`.
    static func userProfile(userID: String) -> RouteRequest {
        RouteRequest(id: "profile.user", parameters: ["userID": .string(userID)])
    }
}
