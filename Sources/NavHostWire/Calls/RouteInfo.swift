public import NavHostKit

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
    /// The arguments of each intent, by intent name, like `["onChangedFilter": [text: string]]`; empty from a daemon
    /// that does not say (before NavHost 2.2).
    public var intentArguments: [String: [IntentArgument]]

    /// Creates a route description, as a test double or a front end's own catalog would.
    public init(
        route: String,
        feature: String,
        parameters: [String],
        intents: [String],
        summary: String,
        intentArguments: [String: [IntentArgument]] = [:]
    ) {
        self.route = route
        self.feature = feature
        self.parameters = parameters
        self.intents = intents
        self.summary = summary
        self.intentArguments = intentArguments
    }

    private enum CodingKeys: String, CodingKey { case route, feature, parameters, intents, summary, intentArguments }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        route = try container.decode(String.self, forKey: .route)
        feature = try container.decode(String.self, forKey: .feature)
        parameters = try container.decode([String].self, forKey: .parameters)
        intents = try container.decode([String].self, forKey: .intents)
        summary = try container.decode(String.self, forKey: .summary)
        intentArguments =
            try container.decodeIfPresent([String: [IntentArgument]].self, forKey: .intentArguments) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(route, forKey: .route)
        try container.encode(feature, forKey: .feature)
        try container.encode(parameters, forKey: .parameters)
        try container.encode(intents, forKey: .intents)
        try container.encode(summary, forKey: .summary)
        try IntentArgument.encode(intentArguments, orderedAs: intents, into: &container, forKey: .intentArguments)
    }

    /// An intent with its arguments as the Varlink interface notation writes a method's: `onChangedFilter(text:
    /// string)`; the bare name for an intent without arguments or whose arguments are not known.
    public func signature(of intent: String) -> String {
        guard let arguments = intentArguments[intent], !arguments.isEmpty else { return intent }
        return "\(intent)(\(arguments.map(\.description).joined(separator: ", ")))"
    }
}
