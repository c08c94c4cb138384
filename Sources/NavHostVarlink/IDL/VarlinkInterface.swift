/// A parsed Varlink interface definition: its name, types, methods and errors, and the text it was read from.
///
/// ```swift
/// let interface = try VarlinkInterface(parsing: """
///     # Jumps a spacecraft.
///     interface org.example.ftl
///
///     method Jump(configuration: (speed: int, duration: int)) -> ()
///     """)
/// interface.methods["Jump"]?.input   // [configuration: (speed: int, duration: int)]
/// ```
///
/// ``description`` keeps the original text byte for byte: it is what `GetInterfaceDescription` serves, comments and
/// layout included.
public struct VarlinkInterface: Sendable {
    /// The interface name in reverse-domain notation, like `org.example.ftl`.
    public let name: String
    /// The documentation comment before the `interface` keyword.
    public let documentation: String
    /// The definition exactly as it was parsed.
    public let description: String
    /// The types, methods and errors in the order they are declared.
    public let members: [Member]

    /// The methods by name.
    public let methods: [String: Method]
    /// The types declared with `type`, by name.
    public let types: [String: TypeDeclaration]
    /// The errors by name.
    public let errors: [String: ErrorDeclaration]

    init(name: String, documentation: String, description: String, members: [Member]) {
        self.name = name
        self.documentation = documentation
        self.description = description
        self.members = members
        var methods: [String: Method] = [:]
        var types: [String: TypeDeclaration] = [:]
        var errors: [String: ErrorDeclaration] = [:]
        for member in members {
            switch member {
            case .method(let method): methods[method.name] = method
            case .type(let type): types[type.name] = type
            case .error(let error): errors[error.name] = error
            }
        }
        self.methods = methods
        self.types = types
        self.errors = errors
    }
}

// MARK: - Members

extension VarlinkInterface {
    /// One declaration of an interface.
    public enum Member: Sendable, Hashable {
        case type(TypeDeclaration)
        case method(Method)
        case error(ErrorDeclaration)

        /// The member's name, unique within the interface.
        public var name: String {
            switch self {
            case .type(let type): return type.name
            case .method(let method): return method.name
            case .error(let error): return error.name
            }
        }
    }

    /// `type Name (…)`: a named structure or enumeration.
    public struct TypeDeclaration: Sendable, Hashable {
        /// The type's name.
        public var name: String
        /// What the name stands for: a ``VarlinkType/structure(_:)`` or an ``VarlinkType/enumeration(_:)``.
        public var type: VarlinkType
        /// The documentation comment before the declaration.
        public var documentation: String
    }

    /// `method Name (…) -> (…)`.
    public struct Method: Sendable, Hashable {
        /// The method's name.
        public var name: String
        /// The input parameters.
        public var input: [VarlinkField]
        /// The output parameters.
        public var output: [VarlinkField]
        /// The documentation comment before the declaration.
        public var documentation: String
    }

    /// `error Name (…)`.
    public struct ErrorDeclaration: Sendable, Hashable {
        /// The error's name.
        public var name: String
        /// The error's parameters.
        public var parameters: [VarlinkField]
        /// The documentation comment before the declaration.
        public var documentation: String
    }
}
