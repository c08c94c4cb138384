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
        if let path = firstInvalidPath(in: CheckedMembers(parameters), fields: method.input) {
            throw VarlinkError.invalidParameter(String(path.dropFirst()))
        }
    }

    /// ``validateInput(_:of:)`` for a call's parameters, checked where the call keeps them: as json-c parsed them
    /// (``VarlinkParameterTree``), no ``JSONObject`` made, or as its ``VarlinkCall/parameters``. The same rules, the
    /// same offence named.
    package func validateInput(of call: VarlinkCall, against method: Method) throws(VarlinkError) {
        let path: String?
        if let tree = call.parameterTree {
            path = tree.withMembers { firstInvalidPath(in: $0, fields: method.input) }
        } else {
            path = call.withParameters { firstInvalidPath(in: CheckedMembers($0), fields: method.input) }
        }
        if let path { throw VarlinkError.invalidParameter(String(path.dropFirst())) }
    }

    /// Checks output parameters against a method's output declaration, by the same rules as ``validateInput(_:of:)``.
    ///
    /// - Returns: The path of the first offending parameter, or `nil` when the parameters are valid.
    public func firstInvalidOutput(_ parameters: JSONObject, of method: Method) -> String? {
        firstInvalidPath(in: CheckedMembers(parameters), fields: method.output).map { String($0.dropFirst()) }
    }

    // MARK: - Private

    // One walk answers both whether a value is valid and, when it is not, where: it returns `nil` for a valid value
    // and otherwise the offence's path, relative to the value checked: "" for the value itself, `.name…` below a
    // member, `[index]…` below an element. The path is made on the way back from the offending value, so a valid
    // call, the common case, makes none. The walk is generic over where the values are (`CheckedValue`): the SDK's
    // `JSONValue`, or json-c's parse of a call; the compiler makes a copy of it for each.

    /// The path of the first offence in `object` against `fields`, or `nil` when there is none.
    ///
    /// The first offence is a member that no field declares (the first in the object's order), else the first field
    /// in declaration order that is missing, `null` without being optional, or holding an invalid value. One walk over
    /// the members finds it: it stops at an undeclared member, keeps the offending field declared earliest, and notes
    /// which fields it saw, so that no field is looked up by name.
    private func firstInvalidPath<Members: CheckedObject>(in object: Members, fields: [VarlinkField]) -> String? {
        // The offending field declared earliest, and the member that holds its value. Its path is made again at the
        // end, where it is returned: the walk keeps a number and a place, nothing to destroy.
        var earliestOffence: (position: Int, member: Members.Member)?
        var seen = SeenFields()
        var member = object.first
        while let current = member {
            member = object.member(after: current)
            guard let position = object.position(ofKeyOf: current, in: fields) else {
                return "." + object.key(of: current)
            }
            seen.insert(position)
            // A field declared before this one already offends: only an undeclared member can come before it now.
            if let earliestOffence, earliestOffence.position < position { continue }
            // `null` passes only an optional type.
            if firstInvalidPath(in: object.value(of: current), type: fields[position].type) != nil {
                earliestOffence = (position, current)
            }
        }
        for position in fields.indices {
            if let earliestOffence, earliestOffence.position == position {
                let value = object.value(of: earliestOffence.member)
                let invalid = firstInvalidPath(in: value, type: fields[position].type)
                return "." + fields[position].name + (invalid ?? "")
            }
            guard !fields[position].type.isOptional else { continue }
            // A declaration of more than 64 fields, rare, has the rest looked for by name.
            let isPresent = position < 64 ? seen.contains(position) : object.containsKey(fields[position].name)
            if !isPresent { return "." + fields[position].name }
        }
        return nil
    }

    /// The path of the first offence in `value` against `type`, or `nil` when there is none.
    private func firstInvalidPath<Value: CheckedValue>(in value: Value, type: VarlinkType) -> String? {
        let here = ""
        switch type {
        case .optional(let wrapped):
            return value.kind == .null ? nil : firstInvalidPath(in: value, type: wrapped)
        case .any:
            return value.kind == .null ? here : nil
        case .bool:
            return value.kind == .bool ? nil : here
        case .string:
            return value.kind == .string ? nil : here
        case .object:
            return value.kind == .object ? nil : here
        case .int:
            // An `int` is 64-bit and signed, the spec's usual size. The JSON layer reads a whole number above
            // Int64.max as a double, rounded to 53 bits (UInt64.max reads as 2^64, as does any larger number): it is
            // refused as a number that is not an integer is, not handed to a handler as a value nobody sent.
            return value.kind == .int ? nil : here
        case .float:
            return value.kind == .int || value.kind == .float ? nil : here
        case .named(let name):
            guard let declaration = types[name] else { return here }
            return firstInvalidPath(in: value, type: declaration.type)
        case .structure(let fields):
            guard let members = value.members else { return here }
            return firstInvalidPath(in: members, fields: fields)
        case .enumeration(let names):
            guard value.kind == .string, let name = value.stringValue, names.contains(name) else { return here }
            return nil
        case .array(let element):
            guard value.kind == .array else { return here }
            return value.firstElementPath { firstInvalidPath(in: $0, type: element) }
        case .map(let element):
            guard let members = value.members else { return here }
            var member = members.first
            while let current = member {
                if let invalid = firstInvalidPath(in: members.value(of: current), type: element) {
                    return "." + members.key(of: current) + invalid
                }
                member = members.member(after: current)
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
