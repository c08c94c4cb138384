import OrderedCollections
import Synchronization

/// Recognizes ``JSONObject`` values whatever copy of swift-collections made them.
///
/// A process can hold two copies of `OrderedCollections`: the one inside `libNavHostKit.so`, and one that the daemon
/// links statically through its other dependencies (swift-service-lifecycle → swift-async-algorithms). The Swift
/// runtime takes `OrderedDictionary<String, JSONValue>` from each copy for a different type, so `value as? JSONObject`
/// and `T.self == JSONObject.self` fail in this library for objects the daemon built. Both copies come from the same
/// source, so they have the same mangled name and the same layout: a value of the other copy can be read as this one.
enum JSONObjectIdentity {
    private static let mangledName = _mangledTypeName(JSONObject.self)
    /// Types already looked at, so each type's name is compared once.
    private static let known = Mutex<[ObjectIdentifier: Bool]>([:])

    /// Whether `type` is ``JSONObject``, from this copy of swift-collections or another one.
    static func isJSONObject(_ type: Any.Type) -> Bool {
        if type == JSONObject.self { return true }
        let key = ObjectIdentifier(type)
        if let answer = known.withLock({ $0[key] }) { return answer }
        let answer = _mangledTypeName(type) == mangledName
        known.withLock { $0[key] = answer }
        return answer
    }

    /// `value` as this library's ``JSONObject``, when it is a ``JSONObject`` of any copy.
    static func object<Value>(_ value: Value) -> JSONObject? {
        if let object = value as? JSONObject { return object }
        guard MemoryLayout<Value>.size == MemoryLayout<JSONObject>.size, isJSONObject(Value.self) else { return nil }
        return unsafeBitCast(value, to: JSONObject.self)
    }

    /// `object` as `Value`, a type ``isJSONObject(_:)`` accepts.
    static func cast<Value>(_ object: JSONObject, to type: Value.Type) -> Value {
        if let value = object as? Value { return value }
        precondition(MemoryLayout<Value>.size == MemoryLayout<JSONObject>.size && isJSONObject(Value.self))
        return unsafeBitCast(object, to: Value.self)
    }
}
