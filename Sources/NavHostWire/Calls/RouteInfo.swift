/// A route some loaded feature offers, as `io.navhost.Navigation.Routes` lists it.
public struct RouteInfo: Sendable, Hashable, Codable {
    /// The route's wire ID, like `products.detail`.
    public var route: String
    /// The name of the feature that offers it, like `Products`.
    public var feature: String
    /// The names of the route's parameters, like `["productID"]`.
    public var parameters: [String]
    /// The names of the intents its screen accepts, like `["onTappedRetry", "onTappedSeller"]`.
    public var intents: [String]
    /// One line on what the screen shows.
    public var summary: String

    /// Creates a route description, as a test double or a front end's own catalog would.
    public init(route: String, feature: String, parameters: [String], intents: [String], summary: String) {
        self.route = route
        self.feature = feature
        self.parameters = parameters
        self.intents = intents
        self.summary = summary
    }
}
