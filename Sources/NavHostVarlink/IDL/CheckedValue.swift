internal import CJSONC
internal import NavHostJSON

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

// What the parameter check (VarlinkInterface+Validation.swift) asks of the values it walks, and the two places values
// are: the SDK's `JSONValue` (a call read the general way, replies, tests), and json-c's parse of a call, which a call
// read straight from it keeps (`VarlinkParameterTree`). One walk, generic over these: both are checked by the same
// rules, and name the same offence.

/// A JSON value's kind, as the parameter check tells them apart.
enum CheckedKind {
    case null, bool, int, float, string, array, object
}

/// A value the parameter check walks.
protocol CheckedValue {
    associatedtype Members: CheckedObject where Members.Value == Self
    /// Its kind: `int` for an integer in the signed 64-bit range, `float` for any other number.
    var kind: CheckedKind { get }
    /// Its members, when it is an object.
    var members: Members? { get }
    /// Its text, when it is a string.
    var stringValue: String? { get }
    /// `check`'s answer for the first element it answers for, as `[index]` and that answer; `nil` when it answers
    /// for none (or this is no array).
    func firstElementPath(_ check: (Self) -> String?) -> String?
}

/// An object the parameter check walks, member by member in the object's order.
protocol CheckedObject {
    associatedtype Value: CheckedValue
    /// A place in the object: a member.
    associatedtype Member
    /// The first member; `nil` for an empty object.
    var first: Member? { get }
    /// The member after `member`; `nil` after the last.
    func member(after member: Member) -> Member?
    /// The key of `member`.
    func key(of member: Member) -> String
    /// Where the field named by the key of `member` is in `fields`; `nil` when none is.
    func position(ofKeyOf member: Member, in fields: [VarlinkField]) -> Int?
    /// The value of `member`.
    func value(of member: Member) -> Value
    /// Whether a member has the key `name`.
    func containsKey(_ name: String) -> Bool
}

// MARK: - The SDK's values

/// An object of the SDK's, its keys and values taken out once: through the object's `Collection` conformance each
/// member of the SDK's resilient type would cost witness calls and copies.
struct CheckedMembers: CheckedObject {
    private let keys: [String]
    private let values: [JSONValue]

    init(_ object: JSONObject) {
        keys = object.keys
        values = object.values
    }

    var first: Int? { keys.isEmpty ? nil : 0 }

    func member(after member: Int) -> Int? { member + 1 < keys.count ? member + 1 : nil }

    func key(of member: Int) -> String { keys[member] }

    func position(ofKeyOf member: Int, in fields: [VarlinkField]) -> Int? {
        let key = keys[member]
        // By index: a closure over the fields copied each field, its type with it.
        for index in fields.indices where fields[index].name == key {
            return index
        }
        return nil
    }

    func value(of member: Int) -> JSONValue { values[member] }

    func containsKey(_ name: String) -> Bool { keys.contains(name) }
}

extension JSONValue: CheckedValue {
    /// Asked by ``JSONValue/typeName``, not by matching the value's cases: `JSONValue` holds the SDK's `JSONObject`,
    /// whose layout only the run time knows, so matching a case here copies the whole value through the runtime's
    /// witnesses first (about 150 instructions a value); the SDK, which knows the layout, answers `typeName` with a
    /// constant.
    var kind: CheckedKind {
        switch typeName {
        case "null": .null
        case "bool": .bool
        case "int": .int
        case "string": .string
        case "array": .array
        case "object": .object
        default: .float
        }
    }

    var members: CheckedMembers? { objectValue.map(CheckedMembers.init) }

    func firstElementPath(_ check: (JSONValue) -> String?) -> String? {
        guard let elements = arrayValue else { return nil }
        for index in elements.indices {
            if let invalid = check(elements[index]) { return "[\(index)]" + invalid }
        }
        return nil
    }
}

// MARK: - json-c's values

/// A value of json-c's parse of a call: one ``VarlinkCallReader`` reads (no number json-c made infinite, no integer
/// it read as a limit). `nil` is JSON's `null`, as json-c gives it.
struct JSONCValue: CheckedValue {
    let object: OpaquePointer?

    var kind: CheckedKind {
        guard let object else { return .null }
        switch json_object_get_type(object) {
        case json_type_boolean:
            return .bool
        case json_type_int:
            // An integer above `Int64.max` is a `float`, as the reader and the general reading make it a `Double`.
            let isAboveInt64 =
                json_object_get_int64(object) == Int64.max && json_object_get_uint64(object) > UInt64(Int64.max)
            return isAboveInt64 ? .float : .int
        case json_type_double:
            return .float
        case json_type_string:
            return .string
        case json_type_array:
            return .array
        case json_type_object:
            return .object
        default:
            return .null
        }
    }

    var members: JSONCMembers? {
        guard let object, json_object_get_type(object) == json_type_object else { return nil }
        return JSONCMembers(object)
    }

    var stringValue: String? {
        guard let object, json_object_get_type(object) == json_type_string else { return nil }
        return VarlinkCallReader.string(object)
    }

    func firstElementPath(_ check: (JSONCValue) -> String?) -> String? {
        guard let object, json_object_get_type(object) == json_type_array else { return nil }
        for index in 0..<json_object_array_length(object) {
            if let invalid = check(JSONCValue(object: json_object_array_get_idx(object, index))) {
                return "[\(index)]" + invalid
            }
        }
        return nil
    }
}

/// An object of json-c's parse of a call, walked with json-c's iterator (a member is the iterator at it).
struct JSONCMembers: CheckedObject {
    let object: OpaquePointer

    init(_ object: OpaquePointer) {
        self.object = object
    }

    var first: json_object_iterator? {
        let first = json_object_iter_begin(object)
        return isEnd(first) ? nil : first
    }

    func member(after member: json_object_iterator) -> json_object_iterator? {
        var next = member
        json_object_iter_next(&next)
        return isEnd(next) ? nil : next
    }

    func key(of member: json_object_iterator) -> String {
        var member = member
        guard let name = json_object_iter_peek_name(&member) else { return "" }
        return String(cString: name)
    }

    func position(ofKeyOf member: json_object_iterator, in fields: [VarlinkField]) -> Int? {
        var member = member
        guard let name = json_object_iter_peek_name(&member) else { return nil }
        // The key made a string once, compared with each field's name by index: a closure over the fields copied
        // each field, its type with it.
        let key = VarlinkCallReader.string(UnsafeRawPointer(name), length: strlen(name))
        for index in fields.indices where fields[index].name == key {
            return index
        }
        return nil
    }

    func value(of member: json_object_iterator) -> JSONCValue {
        var member = member
        return JSONCValue(object: json_object_iter_peek_value(&member))
    }

    func containsKey(_ name: String) -> Bool {
        name.withCString { json_object_object_get_ex(object, $0, nil) } != 0
    }

    private func isEnd(_ member: json_object_iterator) -> Bool {
        var member = member
        var end = json_object_iter_end(object)
        return json_object_iter_equal(&member, &end) != 0
    }
}
