import NavHostKit

/// Screens of other features that Home opens, addressed by wire ID so that Home need not import them.
enum ExternalRoute {
    /// The catalog: the Products feature's `products.list`.
    static let productList = RouteRequest(id: "products.list")

    /// The preferences: the Settings feature's `settings.main`.
    static let settings = RouteRequest(id: "settings.main")

    /// The profile of the user `userID`: the UserProfile feature's `profile.user`.
    static func userProfile(userID: String) -> RouteRequest {
        RouteRequest(id: "profile.user", parameters: ["userID": .string(userID)])
    }
}
