internal import NavHostJSON

/// The built-in `org.varlink.service` interface.
enum OrgVarlinkService {
    /// The definition as the UAPI Varlink specification gives it.
    static let description = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the service does not
        # implement it.
        error MethodNotImplemented (method: string)

        # One of the passed parameters is invalid.
        error InvalidParameter (parameter: string)

        # Client is denied access
        error PermissionDenied ()

        # Method is expected to be called with 'more' set to true, but wasn't
        error ExpectedMore ()

        # Method is expected to be called with 'upgrade' set to true, but wasn't
        error ExpectedUpgrade ()

        """

    // The text above is a constant that the tests parse; a failure here is a programming error.
    static let interface = try! VarlinkInterface(parsing: description)

    /// Answers a call of one of the interface's methods; the parameters have been validated.
    static func reply(to call: VarlinkCall, service: VarlinkService) throws(VarlinkError) -> JSONObject {
        switch call.memberName {
        case "GetInfo":
            let interfaces = [VarlinkError.serviceInterface] + service.interfaceNames
            return [
                "vendor": .string(service.vendor),
                "product": .string(service.product),
                "version": .string(service.version),
                "url": .string(service.url),
                "interfaces": .array(interfaces.map { .string($0) }),
            ]
        case "GetInterfaceDescription":
            let name = call.parameters["interface"]?.stringValue ?? ""
            guard let interface = service.interface(named: name) else { throw VarlinkError.interfaceNotFound(name) }
            return ["description": .string(interface.description)]
        default:
            throw VarlinkError.methodNotImplemented(call.method)
        }
    }
}
