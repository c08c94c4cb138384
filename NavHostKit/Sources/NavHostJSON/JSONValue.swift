/// A JSON document held as a Swift value.
///
/// Every byte NavHost reads from or writes to the wire passes through json-c: ``JSONParser`` turns bytes into a
/// `JSONValue`, and ``JSONValue/serializedBytes()`` turns one back into bytes. Objects keep the order of their keys,
/// so what is serialized reads in the order it was built or received.
///
/// Integers are kept exactly in the `Int64` range. A positive integer above `Int64.max` is read as a `Double`
/// (json-c keeps it as an unsigned 64-bit value, which Swift code rarely wants).
///
/// The enum is `@frozen`: JSON's data model has exactly these kinds of value and will not gain another, so plugins
/// may switch over it exhaustively and the SDK promises never to add a case.
@frozen
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    /// The members when this is an object, otherwise `nil`.
    public var objectValue: JSONObject? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements when this is an array, otherwise `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text when this is a string, otherwise `nil`.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The flag when this is a boolean, otherwise `nil`.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The number when this is an integer, otherwise `nil`.
    public var intValue: Int64? {
        if case .int(let number) = self { return number }
        return nil
    }

    /// The number when this is an integer or a floating-point number, otherwise `nil`.
    public var doubleValue: Double? {
        switch self {
        case .double(let number): return number
        case .int(let number): return Double(number)
        default: return nil
        }
    }

    /// Whether this is JSON `null`.
    public var isNull: Bool { self == .null }

    /// The member named `key` when this is an object that has it, otherwise `nil`.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index` when this is an array that long, otherwise `nil`: `state["items"]?[0]?["title"]`.
    ///
    /// - Since: NavHostKit 2.2.0.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The JSON type's name as the Varlink and JSON specifications spell it, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "float"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - CustomStringConvertible

extension JSONValue: CustomStringConvertible {
    /// The compact serialized form, or a note when the value cannot be serialized (a non-finite number).
    public var description: String {
        (try? serializedString()) ?? "<unserializable JSON: non-finite number>"
    }
}
