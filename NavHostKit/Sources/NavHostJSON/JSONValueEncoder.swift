/// Encodes `Encodable` Swift values into ``JSONValue``s.
///
/// Keys come out in the order the type encodes them. `nil` optionals encoded with `encodeIfPresent` (what synthesized
/// conformances use) are left out; a `Double` that is NaN or infinite fails with ``JSONError/Code/nonFiniteNumber``.
/// A ``JSONObject`` becomes a JSON object, members in order.
public struct JSONValueEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes `value` into a JSON value.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let root = EncodedBox()
        try encodeValue(value, into: root, codingPath: [])
        return root.resolved()
    }

    /// Encodes `value` and serializes it compactly with json-c.
    public func encodeToBytes(_ value: some Encodable) throws -> [UInt8] {
        try encode(value).serializedBytes()
    }
}

// MARK: - Private

/// A node of the value being built; containers share nodes so nested containers can be filled later.
///
/// A member or element that encodes as a primitive is kept as its value, without a node of its own: most of a state's
/// members are strings and numbers, and a node each cost an allocation, and a walk at the end.
private final class EncodedBox {
    /// A member or an element: its value, or the node it is being encoded into.
    enum Slot {
        case value(JSONValue)
        case box(EncodedBox)

        var resolved: JSONValue {
            switch self {
            case .value(let value): value
            case .box(let box): box.resolved()
            }
        }
    }

    enum Content {
        case unset
        case value(JSONValue)
        /// An object's members: names and slots in order, a name set again keeping its place.
        case object(keys: [String], slots: [Slot])
        case array([Slot])
    }

    var content: Content = .unset

    init() {}

    func resolved() -> JSONValue {
        switch content {
        case .unset: return .object([:])
        case .value(let value): return value
        case .object(let keys, let slots):
            return .object(JSONObject(uniqueKeys: keys, values: slots.map(\.resolved)))
        case .array(let slots): return .array(slots.map(\.resolved))
        }
    }

    /// A new node for the member named `key`.
    func child(forKey key: String) -> EncodedBox {
        let box = EncodedBox()
        put(.box(box), forKey: key)
        return box
    }

    func set(_ value: JSONValue, forKey key: String) {
        put(.value(value), forKey: key)
    }

    /// A new node for the next element.
    func appendChild() -> EncodedBox {
        let box = EncodedBox()
        append(.box(box))
        return box
    }

    func append(_ value: JSONValue) {
        append(.value(value))
    }

    var count: Int {
        if case .array(let slots) = content { return slots.count }
        return 0
    }

    func becomeObject() {
        if case .object = content { return }
        content = .object(keys: [], slots: [])
    }

    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }

    /// Puts `slot` in the place of the member named `key`, or at the end.
    private func put(_ slot: Slot, forKey key: String) {
        guard case .object(var keys, var slots) = content else {
            content = .object(keys: [key], slots: [slot])
            return
        }
        // Let go of the content's reference first: the arrays then grow in place.
        content = .unset
        if let position = keys.firstIndex(of: key) {
            slots[position] = slot
        } else {
            keys.append(key)
            slots.append(slot)
        }
        content = .object(keys: keys, slots: slots)
    }

    private func append(_ slot: Slot) {
        guard case .array(var slots) = content else {
            content = .array([slot])
            return
        }
        content = .unset
        slots.append(slot)
        content = .array(slots)
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { "\(intValue!)" }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

/// The JSON value of `value` when it is one of JSON's primitives (or already JSON); `nil` for anything that encodes
/// itself.
///
/// The type is compared, not cast: `Value` is only known at run time here (the SDK is a resilient library, the types
/// are the features'), and a chain of `as?` casts cost up to 16 failed dynamic casts for every struct, array and
/// dictionary a state holds. The comparisons are written out, each one of two metadata pointers: a generic helper
/// that compared and cast, left unspecialized, cost about 45 instructions a type, 16 types for every struct a state
/// holds. An `Optional` of a primitive is not matched; it encodes itself through a single-value container, which
/// comes back here with the wrapped value.
private func primitive<Value: Encodable>(
    _ value: Value,
    at codingPath: @autoclosure () -> [any CodingKey]
) throws -> JSONValue? {
    let type = ObjectIdentifier(Value.self)
    // A cast between identical types is the runtime's quickest path; only a matched type is cast.
    if type == ObjectIdentifier(Bool.self) { return .bool(value as! Bool) }
    if type == ObjectIdentifier(String.self) { return .string(value as! String) }
    if type == ObjectIdentifier(Int.self) { return .int(Int64(value as! Int)) }
    if type == ObjectIdentifier(Double.self) { return try finite(value as! Double, at: codingPath()) }
    if type == ObjectIdentifier(JSONValue.self) { return value as? JSONValue }
    if type == ObjectIdentifier(JSONObject.self) { return .object(value as! JSONObject) }
    if type == ObjectIdentifier(Int64.self) { return .int(value as! Int64) }
    if type == ObjectIdentifier(Float.self) { return try finite(Double(value as! Float), at: codingPath()) }
    if type == ObjectIdentifier(Int8.self) { return .int(Int64(value as! Int8)) }
    if type == ObjectIdentifier(Int16.self) { return .int(Int64(value as! Int16)) }
    if type == ObjectIdentifier(Int32.self) { return .int(Int64(value as! Int32)) }
    if type == ObjectIdentifier(UInt8.self) { return .int(Int64(value as! UInt8)) }
    if type == ObjectIdentifier(UInt16.self) { return .int(Int64(value as! UInt16)) }
    if type == ObjectIdentifier(UInt32.self) { return .int(Int64(value as! UInt32)) }
    if type == ObjectIdentifier(UInt.self) { return unsigned(UInt64(value as! UInt)) }
    if type == ObjectIdentifier(UInt64.self) { return unsigned(value as! UInt64) }
    return nil
}

private func unsigned(_ number: UInt64) -> JSONValue {
    number <= UInt64(Int64.max) ? .int(Int64(number)) : .double(Double(number))
}

private func finite(_ number: Double, at codingPath: [any CodingKey]) throws -> JSONValue {
    guard number.isFinite else {
        throw JSONError(
            code: .nonFiniteNumber,
            message: "\(number) has no JSON representation",
            path: codingPath.pathDescription
        )
    }
    return .double(number)
}

private func encodeValue<Value: Encodable>(_ value: Value, into box: EncodedBox, codingPath: [any CodingKey]) throws {
    if let json = try primitive(value, at: codingPath) {
        box.content = .value(json)
        return
    }
    try encodeComposite(value, into: box, codingPath: codingPath)
}

/// Has `value`, which ``primitive(_:at:)`` did not match, encode itself into `box`.
private func encodeComposite<Value: Encodable>(
    _ value: Value,
    into box: EncodedBox,
    codingPath: [any CodingKey]
) throws {
    try value.encode(to: ValueEncoder(box: box, codingPath: codingPath))
}

private struct ValueEncoder: Encoder {
    let box: EncodedBox
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        box.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        box.becomeArray()
        return UnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(box: box, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodedBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { box.set(.null, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(.int(value), forKey: key.stringValue) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        if let json = try primitive(value, at: codingPath + [key]) {
            box.set(json, forKey: key.stringValue)
            return
        }
        try encodeComposite(value, into: box.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.child(forKey: key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = box.child(forKey: key.stringValue)
        child.becomeArray()
        return UnkeyedContainer(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(box: box.child(forKey: "super"), codingPath: codingPath + [SuperKey()])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(box: box.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: EncodedBox
    let codingPath: [any CodingKey]
    var count: Int { box.count }

    mutating func encodeNil() throws { box.append(.null) }

    mutating func encode(_ value: some Encodable) throws {
        let key = IndexKey(count)
        if let json = try primitive(value, at: codingPath + [key]) {
            box.append(json)
            return
        }
        try encodeComposite(value, into: box.appendChild(), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let key = IndexKey(count)
        let child = box.appendChild()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = IndexKey(count)
        let child = box.appendChild()
        child.becomeArray()
        return UnkeyedContainer(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = IndexKey(count)
        return ValueEncoder(box: box.appendChild(), codingPath: codingPath + [key])
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let box: EncodedBox
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws {
        try encodeValue(value, into: box, codingPath: codingPath)
    }
}

// MARK: - Coding paths

extension Array where Element == any CodingKey {
    /// A path like `arguments.items[2].name`, for error messages.
    var pathDescription: String {
        var text = ""
        for key in self {
            if let index = key.intValue, key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
