/// A Varlink service: what it says about itself, and the interfaces it implements.
///
/// Every service implements `org.varlink.service` without being told: `GetInfo` answers with the vendor, product,
/// version, URL and the names of all interfaces (`org.varlink.service` first, then the others in the order they were
/// added), and `GetInterfaceDescription` answers with an interface's definition exactly as it was given.
///
/// ```swift
/// var service = VarlinkService(vendor: "NavHost", product: "navhostd", version: "1.0", url: "https://navhost.example")
/// service.add(navigation)
/// let server = try await VarlinkServer.bind(unixSocketPath: "/run/navhost/io.navhost", service: service)
/// ```
public struct VarlinkService: Sendable {
    /// Who makes the service, for `GetInfo`.
    public var vendor: String
    /// The product's name, for `GetInfo`.
    public var product: String
    /// The product's version, for `GetInfo`.
    public var version: String
    /// A web address about the product, for `GetInfo`.
    public var url: String

    private(set) var implementations: [String: VarlinkInterfaceImplementation] = [:]
    /// Every method of the added interfaces by its full name (`io.navhost.Navigation.Send`): a call is routed with
    /// one look-up, without splitting its name.
    private(set) var routes: [String: MethodRoute] = [:]
    /// The names of the added interfaces, in the order they were added.
    public private(set) var interfaceNames: [String] = []

    /// Creates a service that implements only `org.varlink.service`.
    /// Awaited before `GetInfo` answers, so that a service whose calls cannot run does not look healthy: the daemon
    /// passes a hop to the main actor, where every session runs. `nil` answers at once.
    public var readiness: (@Sendable () async -> Void)?

    public init(vendor: String, product: String, version: String, url: String) {
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
    }

    /// Adds an interface and its handlers.
    ///
    /// - Important: Each interface can be added once, and `org.varlink.service` is built in; adding either again is
    ///   a programming error and traps.
    public mutating func add(_ implementation: VarlinkInterfaceImplementation) {
        let name = implementation.interface.name
        precondition(name != VarlinkError.serviceInterface, "org.varlink.service is built into every VarlinkService")
        precondition(implementations[name] == nil, "the interface \(name) was added twice")
        implementations[name] = implementation
        interfaceNames.append(name)
        for (methodName, method) in implementation.interface.methods {
            routes["\(name).\(methodName)"] = MethodRoute(
                interface: implementation.interface,
                method: method,
                handler: implementation.handlers[methodName]
            )
        }
    }

    /// The definition of an interface the service implements, `org.varlink.service` included.
    public func interface(named name: String) -> VarlinkInterface? {
        if name == VarlinkError.serviceInterface { return OrgVarlinkService.interface }
        return implementations[name]?.interface
    }
}

/// A method of an added interface, with what a call of it needs. A class: a call takes it with one reference, not a
/// copy of its members.
final class MethodRoute: Sendable {
    let interface: VarlinkInterface
    let method: VarlinkInterface.Method
    /// `nil` when the implementation has no handler for it.
    let handler: VarlinkInterfaceImplementation.MethodHandler?

    init(
        interface: VarlinkInterface,
        method: VarlinkInterface.Method,
        handler: VarlinkInterfaceImplementation.MethodHandler?
    ) {
        self.interface = interface
        self.method = method
        self.handler = handler
    }
}
