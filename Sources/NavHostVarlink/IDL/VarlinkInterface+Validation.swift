public import NavHostJSON

extension VarlinkInterface {
    /// Checks a call's parameters against a method's input declaration.
    ///
    /// The rules, from the UAPI Varlink specification:
    /// - every declared field that is not optional (`?`) must be present and not `null`;
    /// - an optional field may be absent or `null`;
    /// - no field may be present that the declaration does not list (in nested structures too);
    /// - every value must match its type: `int` is a JSON integer in the signed 64-bit range, `float` any JSON
    ///   number, an enumeration one of its names, `object` any JSON object, `any` any value but `null`; array
    ///   elements and map values follow their element type.
    ///
    /// - Parameters:
    ///   - parameters: The call's parameters.
    ///   - method: The method called.
    /// - Throws: `org.varlink.service.InvalidParameter` naming the first offending parameter. A nested field is named
    ///   by its path: fields joined with `.`, array elements as `[index]`, map values as `.key`
    ///   (`configuration.speed`, `items[2].name`, `labels.color`). A member the declaration does not list is named
    ///   before anything else; then the fields in the order they are declared.
    public func validateInput(_ parameters: JSONObject, of method: Method) throws(VarlinkError) {
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

    // One walk answers both whether a value is valid and, when it is not, where: it returns `nil` for a valid value
    // and otherwise the offence's path, relative to the value checked: "" for the value itself, `.name…` below a
    // member, `[index]…` below an element. The path is made on the way back from the offending value, so a valid
    // call, the common case, makes none.

    /// The path of the first offence in `object` against `fields`, or `nil` when there is none.
    ///
    /// The first offence is a member that no field declares (the first in the object's order), else the first field
    /// in declaration order that is missing, `null` without being optional, or holding an invalid value. One walk over
    /// the members finds it: it stops at an undeclared member, keeps the offending field declared earliest, and notes
    /// which fields it saw, so that no field is looked up by name.
    private func firstInvalidPath(in object: JSONObject, fields: [VarlinkField]) -> String? {
        // The offending field declared earliest, and the member that holds its value. Its path is made again at the
        // end, where it is returned: the walk keeps two numbers, nothing to destroy.
        var earliestOffence: (position: Int, member: Int)?
        var seen = SeenFields()
        // The two arrays, not the object's `Collection` conformance: each member of the SDK's resilient type would
        // cost witness calls and copies.
        let keys = object.keys
        let values = object.values
        for index in keys.indices {
            let key = keys[index]
            guard let position = fields.firstIndex(where: { $0.name == key }) else { return "." + key }
            seen.insert(position)
            // A field declared before this one already offends: only an undeclared member can come before it now.
            if let earliestOffence, earliestOffence.position < position { continue }
            // `null` passes only an optional type.
            if firstInvalidPath(in: values[index], type: fields[position].type) != nil {
                earliestOffence = (position, index)
            }
        }
        for position in fields.indices {
            if let earliestOffence, earliestOffence.position == position {
                let invalid = firstInvalidPath(in: values[earliestOffence.member], type: fields[position].type)
                return "." + fields[position].name + (invalid ?? "")
            }
            guard !fields[position].type.isOptional else { continue }
            // A declaration of more than 64 fields, rare, has the rest looked for by name.
            let isPresent = position < 64 ? seen.contains(position) : keys.contains(fields[position].name)
            if !isPresent { return "." + fields[position].name }
        }
        return nil
    }

    /// The path of the first offence in `value` against `type`, or `nil` when there is none.
    ///
    /// It asks the value for its kind by ``JSONValue/typeName``, not by matching its cases, and takes a payload out
    /// only where it has members, elements or a name to check. `JSONValue` holds the SDK's `JSONObject`, whose layout
    /// only the run time knows, so matching a case here copies the whole value through the runtime's witnesses first
    /// (about 150 instructions a value); the SDK, which knows the layout, answers `typeName` with a constant.
    private func firstInvalidPath(in value: JSONValue, type: VarlinkType) -> String? {
        let here = ""
        switch type {
        case .optional(let wrapped):
            return value.typeName == "null" ? nil : firstInvalidPath(in: value, type: wrapped)
        case .any:
            return value.typeName == "null" ? here : nil
        case .bool:
            return value.typeName == "bool" ? nil : here
        case .string:
            return value.typeName == "string" ? nil : here
        case .object:
            return value.typeName == "object" ? nil : here
        case .int:
            // An `int` is 64-bit and signed, the spec's usual size. The JSON layer reads a whole number above
            // Int64.max as a double, rounded to 53 bits (UInt64.max reads as 2^64, as does any larger number): it is
            // refused as a number that is not an integer is, not handed to a handler as a value nobody sent.
            return value.typeName == "int" ? nil : here
        case .float:
            return value.doubleValue != nil ? nil : here
        case .named(let name):
            guard let declaration = types[name] else { return here }
            return firstInvalidPath(in: value, type: declaration.type)
        case .structure(let fields):
            guard let members = value.objectValue else { return here }
            return firstInvalidPath(in: members, fields: fields)
        case .enumeration(let names):
            guard let name = value.stringValue, names.contains(name) else { return here }
            return nil
        case .array(let element):
            guard let elements = value.arrayValue else { return here }
            for index in elements.indices {
                if let invalid = firstInvalidPath(in: elements[index], type: element) { return "[\(index)]" + invalid }
            }
            return nil
        case .map(let element):
            guard let members = value.objectValue else { return here }
            let keys = members.keys
            let values = members.values
            for index in values.indices {
                if let invalid = firstInvalidPath(in: values[index], type: element) {
                    return "." + keys[index] + invalid
                }
            }
            return nil
        }
    }
}

/// The fields of a declaration an object's walk has seen, by position: a bit each for the first 64, which is every
/// declaration in practice.
private struct SeenFields {
    private var bits: UInt64 = 0

    mutating func insert(_ position: Int) {
        if position < 64 { bits |= 1 << UInt64(position) }
    }

    /// Whether the field at `position` was seen; asked only of the first 64.
    func contains(_ position: Int) -> Bool {
        bits & (1 << UInt64(position)) != 0
    }
}
