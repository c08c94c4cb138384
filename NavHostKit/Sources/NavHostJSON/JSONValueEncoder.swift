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
        try encodeValue(value, into: root, path: .root)
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
///
/// The names and slots are stored properties, changed in place, not the payload of an enum of what the node holds:
/// taking the arrays out of such an enum and putting them back copied and consumed the payload on every member, and
/// the arrays, grown one member at a time from empty, were allocated again at the first, second and third member
/// (about 1,000 instructions per member of a catalog state, callgrind). An object's arrays get room for
/// ``expectedMembers`` at its first member.
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

    /// What the node holds: nothing yet, ``value``, an object (``keys`` and ``slots``) or an array (``slots``).
    enum Kind {
        case unset
        case value
        case object
        case array
    }

    /// Room an object's or an array's arrays are given at the first member or element: most states' objects have
    /// fewer.
    static let expectedMembers = 8

    // The members are changed only by the node's own methods, which call no code of the value being encoded while
    // they change one: no access can overlap another, and the runtime's check of each (two per member and element,
    // about 100 instructions with its thread-local look-up, callgrind) is left out.
    @exclusivity(unchecked) private var kind = Kind.unset
    /// The value, when ``kind`` is `.value`.
    @exclusivity(unchecked) private var value = JSONValue.null
    /// An object's member names in order, a name set again keeping its place.
    @exclusivity(unchecked) private var keys: [String] = []
    /// An object's members, in the order of ``keys``, or an array's elements.
    @exclusivity(unchecked) private var slots: [Slot] = []

    init() {}

    func resolved() -> JSONValue {
        switch kind {
        case .unset: return .object([:])
        case .value: return value
        case .object: return .object(JSONObject(uniqueKeys: keys, values: slots.map(\.resolved)))
        case .array: return .array(slots.map(\.resolved))
        }
    }

    /// Makes the node hold `value`, whatever it held.
    func setValue(_ value: JSONValue) {
        become(.value)
        self.value = value
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

    var count: Int { kind == .array ? slots.count : 0 }

    func becomeObject() {
        if kind != .object { become(.object) }
    }

    func becomeArray() {
        if kind != .array { become(.array) }
    }

    /// Makes the node hold an empty `kind`, letting go of what it held.
    private func become(_ kind: Kind) {
        self.kind = kind
        value = .null
        keys = []
        slots = []
    }

    /// Puts `slot` in the place of the member named `key`, or at the end; a node that holds no object becomes one.
    private func put(_ slot: Slot, forKey key: String) {
        becomeObject()
        if let position = keys.firstIndex(of: key) {
            slots[position] = slot
            return
        }
        if keys.isEmpty {
            keys.reserveCapacity(Self.expectedMembers)
            slots.reserveCapacity(Self.expectedMembers)
        }
        keys.append(key)
        slots.append(slot)
    }

    /// Appends `slot`; a node that holds no array becomes one.
    private func append(_ slot: Slot) {
        becomeArray()
        if slots.isEmpty { slots.reserveCapacity(Self.expectedMembers) }
        slots.append(slot)
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

private func encodeValue<Value: Encodable>(_ value: Value, into box: EncodedBox, path: CodingPath) throws {
    if let json = try primitive(value, at: path.keys) {
        box.setValue(json)
        return
    }
    try encodeComposite(value, into: box, path: path)
}

/// Has `value`, which ``primitive(_:at:)`` did not match, encode itself into `box`.
private func encodeComposite<Value: Encodable>(
    _ value: Value,
    into box: EncodedBox,
    path: CodingPath
) throws {
    try value.encode(to: ValueEncoder(box: box, path: path))
}

private struct ValueEncoder: Encoder {
    let box: EncodedBox
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        box.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        box.becomeArray()
        return UnkeyedContainer(box: box, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(box: box, path: path)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodedBox
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }

    mutating func encodeNil(forKey key: Key) throws { box.set(.null, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(.int(value), forKey: key.stringValue) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        if let json = try primitive(value, at: path.appending(key).keys) {
            box.set(json, forKey: key.stringValue)
            return
        }
        try encodeComposite(value, into: box.child(forKey: key.stringValue), path: path.appending(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.child(forKey: key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = box.child(forKey: key.stringValue)
        child.becomeArray()
        return UnkeyedContainer(box: child, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(box: box.child(forKey: "super"), path: path.appending(SuperKey()))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(box: box.child(forKey: key.stringValue), path: path.appending(key))
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: EncodedBox
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }
    var count: Int { box.count }

    mutating func encodeNil() throws { box.append(.null) }

    mutating func encode(_ value: some Encodable) throws {
        let key = IndexKey(count)
        if let json = try primitive(value, at: path.appending(key).keys) {
            box.append(json)
            return
        }
        try encodeComposite(value, into: box.appendChild(), path: path.appending(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let key = IndexKey(count)
        let child = box.appendChild()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = IndexKey(count)
        let child = box.appendChild()
        child.becomeArray()
        return UnkeyedContainer(box: child, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        let key = IndexKey(count)
        return ValueEncoder(box: box.appendChild(), path: path.appending(key))
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let box: EncodedBox
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }

    mutating func encodeNil() throws { box.setValue(.null) }

    mutating func encode(_ value: some Encodable) throws {
        try encodeValue(value, into: box, path: path)
    }
}

// MARK: - Coding paths

/// Where an encoder or a container stands in the value being encoded: its keys from the root, as a chain of nodes
/// that an array is made of only when asked for (`codingPath`, an error's path).
///
/// Each member that encodes itself gets the path of its container and its own key. As an array that was
/// `codingPath + [key]`: two arrays allocated and every key copied through its existential for each such member
/// (about 580 instructions for a catalog state's two, callgrind); a node is one allocation.
private struct CodingPath {
    /// A key and the node of the keys before it.
    final class Node {
        let parent: Node?
        let key: any CodingKey

        init(parent: Node?, key: any CodingKey) {
            self.parent = parent
            self.key = key
        }
    }

    /// The last key's node; `nil` at the root.
    let last: Node?

    /// The root's path: no keys.
    static var root: CodingPath { CodingPath(last: nil) }

    /// This path and `key` after it.
    func appending(_ key: any CodingKey) -> CodingPath {
        CodingPath(last: Node(parent: last, key: key))
    }

    /// The keys from the root.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = last
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }
}

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
