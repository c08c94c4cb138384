import NavHostKit

// The input parameters of io.navhost.Navigation's methods, as their definitions declare them. The Varlink layer has
// validated them against the definition before they are decoded here.

struct SessionParameters: Decodable, Sendable {
    var session: String?
}

struct RouteParameters: Decodable, Sendable {
    var session: String?
    var route: String
    var parameters: JSONObject?

    var request: RouteRequest { RouteRequest(id: route, parameters: parameters ?? JSONObject()) }
}

struct ReplaceParameters: Decodable, Sendable {
    struct RouteSpec: Decodable, Sendable {
        var route: String
        var parameters: JSONObject?
    }

    var session: String?
    var routes: [RouteSpec]

    var requests: [RouteRequest] {
        routes.map { RouteRequest(id: $0.route, parameters: $0.parameters ?? JSONObject()) }
    }
}

struct SendParameters: Decodable, Sendable {
    var session: String?
    var screen: String?
    var intent: String
    var arguments: JSONObject?
}

struct WatchParameters: Decodable, Sendable {
    var session: String?
    var resumeFrom: Int64?
}
