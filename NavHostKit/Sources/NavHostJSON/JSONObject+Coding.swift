internal import Synchronization

/// How ``JSONValueEncoder`` and ``JSONValueDecoder`` recognize a ``JSONObject``, which they write and read as a JSON
/// object.
///
/// `OrderedDictionary`'s own `Codable` conformance writes an array of alternating keys and values, which is not what
/// a `JSONObject` member of a type means on the wire. Recognizing the type cannot rely on a cast: a process may hold
/// more than one copy of swift-collections (the SDK's, and one the daemon links in through its other dependencies),
/// and each copy has its own `OrderedDictionary`, so the `JSONObject` the daemon's code declares is not the type the
/// SDK's code sees, and no cast between them succeeds. So the type is recognized by its name, and its values are
/// converted through their own conformance, from or to the alternating form, whichever copy they come from.
enum JSONObjectCoding {
    private static let typeName = String(reflecting: JSONObject.self)
    private static let answers = Mutex<[ObjectIdentifier: Bool]>([:])

    /// Whether `type` is `OrderedDictionary<String, JSONValue>`, from any copy of swift-collections.
    static func isJSONObject(_ type: Any.Type) -> Bool {
        if type == JSONObject.self { return true }
        let key = ObjectIdentifier(type)
        if let known = answers.withLock({ $0[key] }) { return known }
        let answer = String(reflecting: type) == typeName
        answers.withLock { $0[key] = answer }
        return answer
    }

    /// The alternating form of `members`, as `OrderedDictionary`'s own conformance reads it.
    static func alternating(_ members: JSONObject) -> JSONValue {
        var elements: [JSONValue] = []
        elements.reserveCapacity(members.count * 2)
        for (key, value) in members {
            elements.append(.string(key))
            elements.append(value)
        }
        return .array(elements)
    }
}
