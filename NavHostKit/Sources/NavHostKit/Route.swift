public import NavHostJSON

/// A feature's typed destinations, written as an enum the way the seeds write `AppRoute`.
///
/// Each case is a route; its wire ID is the feature's ``namespace``, a dot, and the case name, and its parameters
/// are the case's labelled associated values:
///
/// ```swift
/// enum ProductsRoute: Route {
///     static let namespace = "products"
///
///     case list                          // "products.list", {}
///     case detail(productID: String)     // "products.detail", {"productID": "p1"}
/// }
/// ```
///
/// The mapping uses the enum's synthesized `Codable` conformance, so give every associated value a label.
public protocol Route: Codable, Hashable, Sendable {
    /// The first part of every route ID of this type, like `products`.
    static var namespace: String { get }
}

extension Route {
    /// This route as a feature-neutral request: its wire ID and JSON parameters.
    public var request: RouteRequest {
        get throws { try RouteRequest(self) }
    }
}

/// A route addressed by its wire ID and JSON parameters, for navigating into another feature without importing it.
///
/// ```swift
/// router.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u42"]))
/// ```
public struct RouteRequest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The route's wire ID, like `products.detail`.
    public var id: String
    /// The route's parameters; empty for a route without any.
    public var parameters: JSONObject

    /// Creates a request from a wire ID and parameters.
    public init(id: String, parameters: JSONObject = JSONObject()) {
        self.id = id
        self.parameters = parameters
    }

    /// Creates the request that stands for a typed route.
    public init<R: Route>(_ route: R) throws {
        let encoded = try JSONValueEncoder().encode(route)
        guard case .object(let members) = encoded, members.count == 1, let (name, value) = members.elements.first
        else {
            throw RouteError.notAnEnumCase(String(describing: R.self))
        }
        self.id = "\(R.namespace).\(name)"
        switch value {
        case .object(let parameters): self.parameters = parameters
        case .null: self.parameters = [:]
        default: throw RouteError.notAnEnumCase(String(describing: R.self))
        }
    }

    /// The part of the ID after the namespace: the enum case name.
    public var caseName: Substring {
        guard let dot = id.firstIndex(of: ".") else { return id[...] }
        return id[id.index(after: dot)...]
    }

    /// The part of the ID before the first dot.
    public var namespace: Substring {
        guard let dot = id.firstIndex(of: ".") else { return id[...] }
        return id[..<dot]
    }

    /// Decodes the typed route this request stands for.
    ///
    /// - Throws: ``RouteError`` when the namespace is not `R`'s, or the parameters do not fit the case.
    public func decode<R: Route>(as type: R.Type) throws -> R {
        guard namespace == R.namespace else { throw RouteError.unknownRoute(id) }
        do {
            return try JSONValueDecoder().decode(R.self, case: String(caseName), arguments: parameters)
        } catch let error as JSONError {
            throw RouteError.invalidParameters(route: id, reason: error.description)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            // The synthesized enum decoder found no case by that name.
            throw RouteError.unknownRoute(id)
        } catch {
            throw RouteError.invalidParameters(route: id, reason: "\(error)")
        }
    }

    public var description: String {
        parameters.isEmpty ? id : "\(id) \(JSONValue.object(parameters))"
    }
}

/// Why a route could not be built.
public enum RouteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No feature offers a route with this ID.
    case unknownRoute(String)
    /// The route exists but its parameters do not fit it.
    case invalidParameters(route: String, reason: String)
    /// A `Route` type that is not an enum with labelled associated values.
    case notAnEnumCase(String)

    public var description: String {
        switch self {
        case .unknownRoute(let id): return "no route \"\(id)\""
        case .invalidParameters(let route, let reason): return "bad parameters for \(route): \(reason)"
        case .notAnEnumCase(let type): return "\(type) must be an enum whose associated values have labels"
        }
    }
}
