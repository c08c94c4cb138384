import NavHostKit

// The input parameters of io.navhost.Navigation's methods, as their definitions declare them. The Varlink layer has
// validated them against the definition before they are decoded here.
//
// Free-form objects (route parameters, intent arguments) are read as `JSONValue`, not `JSONObject`: a `JSONObject`
// is an `OrderedDictionary`, whose own `Decodable` conformance expects an array of alternating keys and values, so
// decoding a JSON object into one fails.

struct SessionParameters: Decodable, Sendable {
    var session: String?
}

struct RouteParameters: Decodable, Sendable {
    var session: String?
    var route: String
    var parameters: JSONValue?

    var request: RouteRequest { RouteRequest(id: route, parameters: parameters?.objectValue ?? JSONObject()) }
}

struct ReplaceParameters: Decodable, Sendable {
    struct RouteSpec: Decodable, Sendable {
        var route: String
        var parameters: JSONValue?
    }

    var session: String?
    var routes: [RouteSpec]

    var requests: [RouteRequest] {
        routes.map { RouteRequest(id: $0.route, parameters: $0.parameters?.objectValue ?? JSONObject()) }
    }
}

struct SendParameters: Decodable, Sendable {
    var session: String?
    var screen: String?
    var intent: String
    var arguments: JSONValue?

    var message: IntentMessage { IntentMessage(name: intent, arguments: arguments?.objectValue ?? JSONObject()) }
}

struct WatchParameters: Decodable, Sendable {
    var session: String?
    var resumeFrom: Int64?
}
