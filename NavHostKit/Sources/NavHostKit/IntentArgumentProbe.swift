// Learns an intent enum's arguments from its Decodable conformance (``ViewModelIntent/arguments``): each case is
// decoded from decoders that hand out placeholder values and write down the keys and types asked for.

/// Decodes one case of an intent enum the way a `Send` would, with placeholders for its arguments.
enum IntentArgumentProbe {
    /// The arguments the case `name` of `type` reads, in the order it reads them.
    static func arguments<I: Decodable>(of type: I.Type, case name: String) -> [IntentArgument] {
        let arguments = ArgumentList()
        _ = try? I(from: CaseProbe(name: name, arguments: arguments))
        return arguments.list
    }

    /// Whether `name` is surely not a case of `type`: its decoding asked for the object's keys and none had that
    /// name. A conformance written by hand that never asks is given the benefit of the doubt.
    static func isNotCase<I: Decodable>(_ type: I.Type, name: String) -> Bool {
        let arguments = ArgumentList()
        _ = try? I(from: CaseProbe(name: name, arguments: arguments))
        return arguments.keysLackedCase && !arguments.caseFound
    }
}

// MARK: - Private Types

/// What a probe has found so far.
private final class ArgumentList {
    var list: [IntentArgument] = []
    /// A key of the case's name was made or asked for.
    var caseFound = false
    /// `allKeys` was asked for, and the enum has no key of the case's name.
    var keysLackedCase = false
}

/// Why a probe stopped: it was asked for something an intent case does not read.
private struct ProbeEnded: Error {}

/// Probes no deeper than this into types of a feature's own (a recursive type would go on for ever).
private let deepestProbe = 8

/// Stands for `{"<case>": {…}}`, the object a synthesized enum conformance reads one case from.
private struct CaseProbe: Decoder {
    let name: String
    let arguments: ArgumentList
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(CaseProbeContainer<Key>(name: name, arguments: arguments))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ProbeEnded() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw ProbeEnded() }
}

/// The one-member object of ``CaseProbe``: its member is the case's arguments.
private struct CaseProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let name: String
    let arguments: ArgumentList
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] {
        guard let key = Key(stringValue: name) else {
            arguments.keysLackedCase = true
            return []
        }
        arguments.caseFound = true
        return [key]
    }

    func contains(_ key: Key) -> Bool {
        guard key.stringValue == name else { return false }
        arguments.caseFound = true
        return true
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        guard key.stringValue == name else { throw ProbeEnded() }
        return KeyedDecodingContainer(ArgumentProbeContainer<NestedKey>(arguments: arguments))
    }

    func decodeNil(forKey key: Key) throws -> Bool { throw ProbeEnded() }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { throw ProbeEnded() }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw ProbeEnded() }
    func superDecoder() throws -> any Decoder { throw ProbeEnded() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw ProbeEnded() }
}

/// A case's arguments: each `decode` is written down with its key and type, and answered with a placeholder.
///
/// The containers here declare only the generic `decode`: it also stands for the protocols' `Bool`, `String`, `Int`…
/// requirements, which a decoder implements one by one only for speed.
///
/// A synthesized conformance reads an optional argument with `decodeIfPresent`, whose default implementation asks
/// `contains` first: a key asked about is written down as optional.
private final class ArgumentProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let arguments: ArgumentList
    private var askedAbout: Set<String> = []
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    init(arguments: ArgumentList) {
        self.arguments = arguments
    }

    func contains(_ key: Key) -> Bool {
        askedAbout.insert(key.stringValue)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let shape = ValueShape()
        let value = Result { try placeholder(T.self, shape: shape, depth: 0) }
        let optional = askedAbout.contains(key.stringValue) ? "?" : ""
        arguments.list.append(IntentArgument(name: key.stringValue, type: optional + shape.word, values: shape.values))
        return try value.get()
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> { throw ProbeEnded() }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw ProbeEnded() }
    func superDecoder() throws -> any Decoder { throw ProbeEnded() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw ProbeEnded() }
}

/// The type word of one value, in the Varlink interface notation: set by the first thing its decoding asks for.
private final class ValueShape {
    var word = "any"
    var isSet = false
    /// The raw values of an enum with `String` raw values that lists its cases.
    var values: [String]?

    func set(_ word: String) {
        guard !isSet else { return }
        self.word = word
        isSet = true
    }
}

/// A placeholder value of `type`, its type word written into `shape`: the standard library's scalars directly,
/// the SDK's JSON types as `any` and `object`, anything else decoded from a ``ShapeProbe``.
private func placeholder<T: Decodable>(_ type: T.Type, shape: ValueShape, depth: Int) throws -> T {
    if let scalar = scalarPlaceholder(type) {
        shape.set(scalar.word)
        return scalar.value
    }
    if let value = JSONValue.null as? T {
        shape.set("any")
        return value
    }
    if let value = JSONObject() as? T {
        shape.set("object")
        return value
    }
    guard depth < deepestProbe else { throw ProbeEnded() }
    if let cases = stringCases(of: type) {
        // Its type word from what it decodes itself from; its first case as the placeholder, which it accepts where
        // an empty string may not be a case, so the arguments after it are learned too.
        _ = try? T(from: ShapeProbe(shape: shape, depth: depth + 1))
        shape.values = cases.rawValues
        return cases.first
    }
    return try T(from: ShapeProbe(shape: shape, depth: depth + 1))
}

/// The first case and the raw values of `type`, when it is a `CaseIterable` enum with `String` raw values.
private func stringCases<T>(of type: T.Type) -> (first: T, rawValues: [String])? {
    guard let cases = enumCases(of: type), let first = cases.first else { return nil }
    let rawValues = cases.compactMap { $0.rawValue as? String }
    return rawValues.count == cases.count ? (first.value, rawValues) : nil
}

/// A placeholder and type word for the standard library's scalar types; `nil` for any other type.
private func scalarPlaceholder<T>(_ type: T.Type) -> (value: T, word: String)? {
    if let value = "" as? T { return (value, "string") }
    if let value = false as? T { return (value, "bool") }
    if let value = 0.0 as? T { return (value, "float") }
    if let value = Float(0) as? T { return (value, "float") }
    let integers: [Any] = [
        0, Int8(0), Int16(0), Int32(0), Int64(0), UInt(0), UInt8(0), UInt16(0), UInt32(0), UInt64(0),
    ]
    for zero in integers {
        if let value = zero as? T { return (value, "int") }
    }
    return nil
}

/// Decodes a value of a feature's own type: the container it asks for first says its type word. Members of an object
/// get placeholders and are not described further; an array has one element, to learn its type.
private struct ShapeProbe: Decoder {
    let shape: ValueShape
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        shape.set("object")
        return KeyedDecodingContainer(PlaceholderContainer<Key>(depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let element = ValueShape()
        let container = OneElementContainer(element: element, depth: depth)
        shape.set("[]any")
        container.onFirstElement = { [shape] in shape.word = "[]" + element.word }
        return container
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleProbeContainer(shape: shape, depth: depth)
    }
}

/// An object whose members are all placeholders: optional ones absent, the others empty, zero or false.
private struct PlaceholderContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { false }
    func decodeNil(forKey key: Key) throws -> Bool { true }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try placeholder(type, shape: ValueShape(), depth: depth)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(PlaceholderContainer<NestedKey>(depth: depth))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        OneElementContainer(element: ValueShape(), depth: depth, count: 0)
    }
    func superDecoder() throws -> any Decoder { ShapeProbe(shape: ValueShape(), depth: depth) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ShapeProbe(shape: ValueShape(), depth: depth) }
}

/// An array of one placeholder element (or none), whose type goes into `element`.
private final class OneElementContainer: UnkeyedDecodingContainer {
    let element: ValueShape
    let depth: Int
    let count: Int?
    private(set) var currentIndex = 0
    var onFirstElement: (() -> Void)?
    var codingPath: [any CodingKey] { [] }
    var isAtEnd: Bool { currentIndex >= (count ?? 1) }

    init(element: ValueShape, depth: Int, count: Int = 1) {
        self.element = element
        self.depth = depth
        self.count = count
    }

    func decodeNil() throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw ProbeEnded() }
        currentIndex += 1
        defer { onFirstElement?() }
        return try placeholder(type, shape: element, depth: depth)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey>
    {
        KeyedDecodingContainer(PlaceholderContainer<NestedKey>(depth: depth))
    }
    func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        OneElementContainer(element: ValueShape(), depth: depth, count: 0)
    }
    func superDecoder() throws -> any Decoder { ShapeProbe(shape: ValueShape(), depth: depth) }
}

/// A single value: its type is the first one its decoding asks for.
private struct SingleProbeContainer: SingleValueDecodingContainer {
    let shape: ValueShape
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try placeholder(type, shape: shape, depth: depth) }
}
