/// A type in the Varlink interface definition language.
///
/// | IDL | case |
/// |---|---|
/// | `bool`, `int`, `float`, `string` | ``bool``, ``int``, ``float``, ``string`` |
/// | `object` (any JSON object), `any` (any value but `null`) | ``object``, ``any`` |
/// | `MyType` | ``named(_:)`` |
/// | `(first: int, second: string)`, `()` | ``structure(_:)`` |
/// | `(one, two, three)` | ``enumeration(_:)`` |
/// | `[]T` | ``array(_:)`` |
/// | `[string]T` (`[string]()` is a set of strings) | ``map(_:)`` |
/// | `?T` | ``optional(_:)`` |
public indirect enum VarlinkType: Sendable, Hashable {
    case bool
    case int
    case float
    case string
    case object
    case any
    /// A type declared with `type Name …` in the same interface.
    case named(String)
    /// A structure of named, typed fields; `()` has none.
    case structure([VarlinkField])
    /// An enumeration: a JSON string that is one of these names.
    case enumeration([String])
    case array(VarlinkType)
    case map(VarlinkType)
    /// A value that may be `null` or absent.
    case optional(VarlinkType)

    /// Whether `null` (or an absent field) is a valid value.
    public var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }
}

/// A named, typed field of a structure, or a method's or error's parameter.
public struct VarlinkField: Sendable, Hashable {
    /// The field's name.
    public var name: String
    /// The field's type.
    public var type: VarlinkType
    /// The documentation comment before the field, without the `#` and one following space; lines joined by `\n`.
    public var documentation: String

    /// Creates a field.
    public init(name: String, type: VarlinkType, documentation: String = "") {
        self.name = name
        self.type = type
        self.documentation = documentation
    }
}

// MARK: - CustomStringConvertible

extension VarlinkType: CustomStringConvertible {
    /// The type in IDL syntax, on one line.
    public var description: String {
        switch self {
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .string: return "string"
        case .object: return "object"
        case .any: return "any"
        case .named(let name): return name
        case .structure(let fields): return "(" + fields.map { "\($0.name): \($0.type)" }.joined(separator: ", ") + ")"
        case .enumeration(let names): return "(" + names.joined(separator: ", ") + ")"
        case .array(let element): return "[]\(element)"
        case .map(let element): return "[string]\(element)"
        case .optional(let wrapped): return "?\(wrapped)"
        }
    }
}
