import NavHostJSON
public import NavHostKit

/// One call a client made to a session, in the form the flight recorder keeps and a replay makes again.
///
/// Its JSON form names the `io.navhost.Navigation` method and its parameters, with the one change a replay needs: an
/// intent's screen is its position on the stack (0 is the root), not its ID, since a replayed session numbers its
/// screens afresh.
///
/// ```json
/// {"method":"Navigate","route":"products.detail","parameters":{"productID":"p3"}}
/// {"method":"Send","intent":"onChangedFilter","arguments":{"text":"engine"},"position":1}
/// ```
public enum SessionCall: Sendable, Hashable {
    case navigate(RouteRequest)
    case present(RouteRequest)
    case pop
    case popToRoot
    case popTo(RouteRequest)
    case dismiss
    case replace([RouteRequest])
    /// An intent to the screen at `position` on the stack, or to the top one when `nil`.
    case send(IntentMessage, position: Int?)

    /// The `io.navhost.Navigation` method the call is.
    public var method: String {
        switch self {
        case .navigate: "Navigate"
        case .present: "Present"
        case .pop: "Pop"
        case .popToRoot: "PopToRoot"
        case .popTo: "PopTo"
        case .dismiss: "Dismiss"
        case .replace: "Replace"
        case .send: "Send"
        }
    }
}

// MARK: - Codable

extension SessionCall: Codable {
    private enum CodingKeys: String, CodingKey {
        case method, route, parameters, routes, intent, arguments, position
    }

    private struct RouteSpec: Codable {
        var route: String
        var parameters: JSONObject?
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        switch self {
        case .navigate(let request), .present(let request), .popTo(let request):
            try container.encode(request.id, forKey: .route)
            try container.encode(request.parameters, forKey: .parameters)
        case .pop, .popToRoot, .dismiss:
            break
        case .replace(let requests):
            try container.encode(
                requests.map { RouteSpec(route: $0.id, parameters: $0.parameters) },
                forKey: .routes
            )
        case .send(let intent, let position):
            try container.encode(intent.name, forKey: .intent)
            try container.encode(intent.arguments, forKey: .arguments)
            try container.encodeIfPresent(position, forKey: .position)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func request() throws -> RouteRequest {
            RouteRequest(
                id: try container.decode(String.self, forKey: .route),
                parameters: try container.decodeIfPresent(JSONObject.self, forKey: .parameters) ?? JSONObject()
            )
        }
        switch try container.decode(String.self, forKey: .method) {
        case "Navigate": self = .navigate(try request())
        case "Present": self = .present(try request())
        case "Pop": self = .pop
        case "PopToRoot": self = .popToRoot
        case "PopTo": self = .popTo(try request())
        case "Dismiss": self = .dismiss
        case "Replace":
            let routes = try container.decode([RouteSpec].self, forKey: .routes)
            self = .replace(routes.map { RouteRequest(id: $0.route, parameters: $0.parameters ?? JSONObject()) })
        case "Send":
            let intent = IntentMessage(
                name: try container.decode(String.self, forKey: .intent),
                arguments: try container.decodeIfPresent(JSONObject.self, forKey: .arguments) ?? JSONObject()
            )
            self = .send(intent, position: try container.decodeIfPresent(Int.self, forKey: .position))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .method,
                in: container,
                debugDescription: "\"\(other)\" is not a call a recording holds"
            )
        }
    }
}
