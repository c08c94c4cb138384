internal import Synchronization

/// Recognizes `JSONObject` values and types for the encoder and decoder, whichever copy of swift-collections made them.
///
/// `OrderedDictionary`'s own `Codable` form is an array of alternating keys and values, but a `JSONObject` must be a
/// JSON object on the wire; so the encoder and decoder treat it specially. Recognizing it takes more than `as?`: a
/// process can hold two copies of swift-collections — `libNavHostKit.so` links one, and an executable that also
/// depends on swift-collections (directly, or through swift-async-algorithms) links its own — and each copy has its
/// own type metadata for `OrderedDictionary<String, JSONValue>`, so a cast from one to the other fails. Both copies
/// are built from the same source in the same build, so their layouts are identical: a type whose fully qualified
/// name is `JSONObject`'s is reinterpreted as one.
enum JSONObjectType {
    private static let name = _typeName(JSONObject.self, qualified: true)
    /// The answer for each type asked about, so the name is compared once per type.
    private static let known = Mutex<[ObjectIdentifier: Bool]>([:])

    /// Whether `type` is `JSONObject`, from either copy of swift-collections.
    static func matches(_ type: Any.Type) -> Bool {
        if type == JSONObject.self { return true }
        let id = ObjectIdentifier(type)
        if let answer = known.withLock({ $0[id] }) { return answer }
        let answer =
            MemoryLayout<JSONObject>.size == layoutSize(of: type) && _typeName(type, qualified: true) == name
        known.withLock { $0[id] = answer }
        return answer
    }

    /// `value` as a `JSONObject`, when its type is one (see ``matches(_:)``).
    static func object<T>(_ value: T) -> JSONObject? {
        if let object = value as? JSONObject { return object }
        guard matches(T.self) else { return nil }
        return unsafeBitCast(value, to: JSONObject.self)
    }

    /// `object` as a value of `T`, when `T` is `JSONObject` (see ``matches(_:)``).
    static func value<T>(_ object: JSONObject, as type: T.Type) -> T? {
        if let value = object as? T { return value }
        guard matches(T.self) else { return nil }
        return unsafeBitCast(object, to: T.self)
    }

    private static func layoutSize(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return _openExistential(type, do: size)
    }
}
