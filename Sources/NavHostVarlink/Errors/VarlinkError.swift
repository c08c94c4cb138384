public import NavHostJSON

/// A Varlink error reply: a fully qualified error name and its parameters.
///
/// This is the error a ``VarlinkClient`` throws when a service answers a call with `{"error": …}`, and the error a
/// method handler throws to answer with one. The standard errors of the `org.varlink.service` interface have
/// factories (``invalidParameter(_:)``, ``permissionDenied()``, …); interface-specific errors are made with
/// ``init(name:parameters:)`` or by conforming a Swift error to ``VarlinkErrorConvertible``.
///
/// ```swift
/// throw VarlinkError(name: "org.example.ftl.NotEnoughEnergy")
/// ```
public struct VarlinkError: Error, Sendable, Hashable {
    /// The fully qualified error name, like `org.varlink.service.InvalidParameter`.
    public var name: String
    /// The error's parameters; empty when the reply carried none.
    public var parameters: JSONObject

    /// Creates an error reply.
    ///
    /// - Parameters:
    ///   - name: The fully qualified error name: the interface name, a dot, and the error's name.
    ///   - parameters: The error's parameters, as the interface declares them.
    public init(name: String, parameters: JSONObject = [:]) {
        self.name = name
        self.parameters = parameters
    }
}

// MARK: - org.varlink.service errors

extension VarlinkError {
    /// The name of the interface every service implements, whose errors any method may return.
    public static let serviceInterface = "org.varlink.service"

    /// `org.varlink.service.InterfaceNotFound`: the called interface is not implemented by the service.
    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.InterfaceNotFound", parameters: ["interface": .string(interface)])
    }

    /// `org.varlink.service.MethodNotFound`: the interface does not define the called method.
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.MethodNotFound", parameters: ["method": .string(method)])
    }

    /// `org.varlink.service.MethodNotImplemented`: the interface defines the method, but the service has no handler.
    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.MethodNotImplemented", parameters: ["method": .string(method)])
    }

    /// `org.varlink.service.InvalidParameter`: a parameter is missing, unknown, of the wrong type or out of range.
    ///
    /// - Parameter parameter: The parameter's name; for a nested field, its path (`configuration.speed`,
    ///   `items[2].name`).
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.InvalidParameter", parameters: ["parameter": .string(parameter)])
    }

    /// `org.varlink.service.PermissionDenied`: the client may not call this method.
    public static func permissionDenied() -> VarlinkError {
        VarlinkError(name: "org.varlink.service.PermissionDenied")
    }

    /// `org.varlink.service.ExpectedMore`: the method has to be called with `more` set.
    public static func expectedMore() -> VarlinkError {
        VarlinkError(name: "org.varlink.service.ExpectedMore")
    }

    /// `org.varlink.service.ExpectedUpgrade`: the method has to be called with `upgrade` set.
    public static func expectedUpgrade() -> VarlinkError {
        VarlinkError(name: "org.varlink.service.ExpectedUpgrade")
    }
}

// MARK: - VarlinkErrorConvertible

/// A Swift error that knows its Varlink form.
///
/// When a method handler throws an error that conforms, the service answers the call with the error's
/// ``varlinkError``. Any other Swift error is answered with a generic error
/// (``VarlinkServerConfiguration/internalErrorName``) without parameters, so that internals never reach the wire.
///
/// ```swift
/// struct RouteNotFound: Error, VarlinkErrorConvertible {
///     var route: String
///     var varlinkError: VarlinkError {
///         VarlinkError(name: "io.navhost.Navigation.RouteNotFound", parameters: ["route": .string(route)])
///     }
/// }
/// ```
public protocol VarlinkErrorConvertible: Error {
    /// The error reply that answers the call.
    var varlinkError: VarlinkError { get }
}

extension VarlinkError: VarlinkErrorConvertible {
    /// The error itself.
    public var varlinkError: VarlinkError { self }
}

// MARK: - CustomStringConvertible

extension VarlinkError: CustomStringConvertible {
    public var description: String {
        parameters.isEmpty ? name : "\(name) \(JSONValue.object(parameters))"
    }
}
