public import NavHostJSON

extension VarlinkInterface {
    /// Checks a call's parameters against a method's input declaration.
    ///
    /// The rules, from the UAPI Varlink specification:
    /// - every declared field that is not optional (`?`) must be present and not `null`;
    /// - an optional field may be absent or `null`;
    /// - no field may be present that the declaration does not list (in nested structures too);
    /// - every value must match its type: `int` is a JSON integer (or a whole number in the unsigned 64-bit range
    ///   above `Int64.max`), `float` any JSON number, an enumeration one of its names, `object` any JSON object,
    ///   `any` any value but `null`; array elements and map values follow their element type.
    ///
    /// - Parameters:
    ///   - parameters: The call's parameters.
    ///   - method: The method called.
    /// - Throws: `org.varlink.service.InvalidParameter` naming the first offending parameter. A nested field is named
    ///   by its path: fields joined with `.`, array elements as `[index]`, map values as `.key`
    ///   (`configuration.speed`, `items[2].name`, `labels.color`).
    public func validateInput(_ parameters: JSONObject, of method: Method) throws(VarlinkError) {
        if isValid(parameters, fields: method.input) { return }
        if let path = firstInvalidPath(in: parameters, fields: method.input) {
            throw VarlinkError.invalidParameter(String(path.dropFirst()))
        }
    }

    /// Checks output parameters against a method's output declaration, by the same rules as ``validateInput(_:of:)``.
    ///
    /// - Returns: The path of the first offending parameter, or `nil` when the parameters are valid.
    public func firstInvalidOutput(_ parameters: JSONObject, of method: Method) -> String? {
        firstInvalidPath(in: parameters, fields: method.output).map { String($0.dropFirst()) }
    }

    // MARK: - Private

    // The paths are made on the way back from the offending value, relative to the value checked: "" for the value
    // itself, `.name…` below a member, `[index]…` below an element. A valid call, the common case, makes none.

    /// Whether `object` holds valid members for `fields`, in one walk over its members: no look-up of each field by
    /// name, as ``firstInvalidPath(in:fields:)`` makes to name the first offence. `true` only when that finds none;
    /// `false` may be said of a valid object too (a declaration of more than 64 fields), and the caller then asks it.
    private func isValid(_ object: JSONObject, fields: [VarlinkField]) -> Bool {
        guard fields.count <= 64 else { return false }
        // The non-optional fields, and those of them seen with a value: one bit each, by position.
        var required: UInt64 = 0
        var seen: UInt64 = 0
        for (position, field) in fields.enumerated() where !field.type.isOptional {
            required |= 1 << UInt64(position)
        }
        // The two arrays, not the object's `Collection` conformance: each member of the SDK's resilient type would
        // cost witness calls and copies.
        let keys = object.keys
        let values = object.values
        for index in keys.indices {
            let key = keys[index]
            guard let position = fields.firstIndex(where: { $0.name == key }) else { return false }
            // `null` passes only an optional type, whose field `required` does not ask for.
            guard isValid(values[index], type: fields[position].type) else { return false }
            seen |= 1 << UInt64(position)
        }
        return seen & required == required
    }

    /// Whether `value` matches `type`: ``firstInvalidPath(in:type:)`` without the path, for the common case of a valid
    /// call.
    ///
    /// It asks the value for its kind by ``JSONValue/typeName``, not by matching its cases, and takes a payload out
    /// only where it has members, elements or a name to check. `JSONValue` holds the SDK's `JSONObject`, whose layout
    /// only the run time knows, so matching a case here copies the whole value through the runtime's witnesses first
    /// (about 150 instructions a value); the SDK, which knows the layout, answers `typeName` with a constant.
    private func isValid(_ value: JSONValue, type: VarlinkType) -> Bool {
        switch type {
        case .optional(let wrapped):
            return value.typeName == "null" || isValid(value, type: wrapped)
        case .any:
            return value.typeName != "null"
        case .bool:
            return value.typeName == "bool"
        case .string:
            return value.typeName == "string"
        case .object:
            return value.typeName == "object"
        case .int:
            if value.typeName == "int" { return true }
            // The JSON layer reads integers above Int64.max as doubles; the unsigned 64-bit range is still an int.
            guard let number = value.doubleValue else { return false }
            return number.rounded() == number && number >= 0x1p63 && number < 0x1p64
        case .float:
            return value.doubleValue != nil
        case .named(let name):
            guard let declaration = types[name] else { return false }
            return isValid(value, type: declaration.type)
        case .structure(let fields):
            guard let members = value.objectValue else { return false }
            return isValid(members, fields: fields)
        case .enumeration(let names):
            guard let name = value.stringValue else { return false }
            return names.contains(name)
        case .array(let element):
            guard let elements = value.arrayValue else { return false }
            for item in elements where !isValid(item, type: element) { return false }
            return true
        case .map(let element):
            guard let members = value.objectValue else { return false }
            for item in members.values where !isValid(item, type: element) { return false }
            return true
        }
    }

    private func firstInvalidPath(in object: JSONObject, fields: [VarlinkField]) -> String? {
        for key in object.keys where !fields.contains(where: { $0.name == key }) {
            return "." + key
        }
        for field in fields {
            guard let value = object[field.name], !value.isNull else {
                if field.type.isOptional { continue }
                return "." + field.name
            }
            if let invalid = firstInvalidPath(in: value, type: field.type) { return "." + field.name + invalid }
        }
        return nil
    }

    private func firstInvalidPath(in value: JSONValue, type: VarlinkType) -> String? {
        switch (type, value) {
        case (.optional, .null):
            return nil
        case (.optional(let wrapped), _):
            return firstInvalidPath(in: value, type: wrapped)
        case (_, .null):
            return ""
        case (.bool, .bool), (.string, .string), (.object, .object), (.any, _), (.int, .int), (.float, .int),
            (.float, .double):
            return nil
        case (.int, .double(let number)):
            // The JSON layer reads integers above Int64.max as doubles; the unsigned 64-bit range is still an int.
            let isWholeUnsigned = number.rounded() == number && number >= 0x1p63 && number < 0x1p64
            return isWholeUnsigned ? nil : ""
        case (.named(let name), _):
            guard let declaration = types[name] else { return "" }
            return firstInvalidPath(in: value, type: declaration.type)
        case (.structure(let fields), .object(let members)):
            return isValid(members, fields: fields) ? nil : firstInvalidPath(in: members, fields: fields)
        case (.enumeration(let names), .string(let name)):
            return names.contains(name) ? nil : ""
        case (.array(let element), .array(let elements)):
            for (index, item) in elements.enumerated() {
                if let invalid = firstInvalidPath(in: item, type: element) { return "[\(index)]" + invalid }
            }
            return nil
        case (.map(let element), .object(let members)):
            for (key, item) in members {
                if let invalid = firstInvalidPath(in: item, type: element) { return "." + key + invalid }
            }
            return nil
        default:
            return ""
        }
    }
}
