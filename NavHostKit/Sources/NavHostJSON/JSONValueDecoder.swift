internal import Synchronization

/// Decodes `Decodable` Swift values from ``JSONValue``s.
///
/// Errors are ``JSONError``s whose `path` names the offending member, like `arguments.email`. An integer-typed
/// property accepts a JSON number with no fractional part (`2.0`), but not one out of its range. A ``JSONObject`` is
/// read from a JSON object.
public struct JSONValueDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes a value of `type` from `json`.
    public func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
        try decodeValue(type, from: json, codingPath: [])
    }

    /// Parses `bytes` as JSON and decodes a value of `type` from it.
    public func decode<T: Decodable>(_ type: T.Type, fromBytes bytes: some Collection<UInt8>) throws -> T {
        try decode(type, from: JSONParser().parse(bytes))
    }

    /// Decodes a value of `type` from the object `{name: arguments}`, without building it: the form a synthesized
    /// `Decodable` enum reads a case with its associated values from, as an intent or a route arrives.
    ///
    /// Decodes what ``decode(_:from:)`` decodes from that object, and fails the same way; and fails with
    /// ``JSONError/Code/unknownMember`` for a member of `arguments` the case does not read (a misspelt optional
    /// argument would otherwise be dropped without a word). The paths of errors start at the arguments: `text`, not
    /// `onChangedFilter.text`. A case decoded by hand that lists the arguments' keys (`allKeys`), or never opens them
    /// as a keyed container, is not checked.
    package func decode<T: Decodable>(_ type: T.Type, case name: String, arguments: JSONObject) throws -> T {
        // Empty arguments hold no member to be unknown: what is read of them is not noted.
        let read = CaseArguments(name: name, arguments: arguments, notesMembers: !arguments.isEmpty)
        guard !arguments.isEmpty else { return try T(from: CaseDecoder(read: read)) }
        let value: T
        do {
            value = try T(from: CaseDecoder(read: read))
        } catch var error as JSONError where error.code == .keyNotFound {
            // A required argument missing beside one the case did not read that is spelt almost like it: say so, as
            // for an unknown member (the unread one may still be a later argument, hence only a near spelling).
            if let missing = error.path,
                let near = arguments.keys.first(where: {
                    !read.hasRead($0) && isNearSpelling($0, of: missing)
                })
            {
                error.message += " (the arguments hold \"\(near)\": misspelt?)"
            }
            throw error
        } catch DecodingError.dataCorrupted(let context) {
            // Thrown by an argument's own type, like a String raw-value enum given a value it has no case for: said
            // the way this decoder says its own errors, not in Swift's debug form.
            throw JSONError(
                code: .dataCorrupted,
                message: context.debugDescription,
                path: context.codingPath.pathDescription
            )
        }
        if read.isOpened, !read.isAll {
            for key in arguments.keys where !read.hasRead(key) {
                throw JSONError(
                    code: .unknownMember,
                    message: "unknown member \"\(key)\"" + (read.hasReadAny ? "" : ": it takes none"),
                    path: key
                )
            }
        }
        return value
    }
}

// MARK: - Private

/// Whether `word` is `target` with one or two letters changed, added, dropped or swapped: `titel` for `title`.
private func isNearSpelling(_ word: String, of target: String) -> Bool {
    let a = Array(word.utf8)
    let b = Array(target.utf8)
    guard a != b, b.count > 2, abs(a.count - b.count) <= 2 else { return false }
    // Optimal string alignment distance, two rows at a time.
    var before = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], before[j - 2] + 1)
            }
        }
        (before, previous, current) = (previous, current, before)
    }
    return previous[b.count] <= 2
}

private func decodeValue<T: Decodable>(_ type: T.Type, from json: JSONValue, codingPath: [any CodingKey]) throws -> T {
    if T.self == JSONValue.self { return json as! T }
    if T.self == JSONObject.self {
        guard case .object(let members) = json else { throw mismatch("an object", found: json, at: codingPath) }
        return members as! T
    }
    do {
        return try T(from: ValueDecoder(json: json, codingPath: codingPath))
    } catch DecodingError.dataCorrupted(let context) where context.codingPath.count == codingPath.count {
        // The value's own type refused it, like a String raw-value enum given a value it has no case for: one that
        // lists its cases says which values it takes.
        guard let cases = enumCases(of: T.self) else { throw DecodingError.dataCorrupted(context) }
        let allowed = cases.map { "\($0.rawValue)" }.joined(separator: ", ")
        throw DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: context.codingPath,
                debugDescription: "\(context.debugDescription); it takes \(allowed)",
                underlyingError: context.underlyingError
            )
        )
    }
}

private func mismatch(_ expected: String, found json: JSONValue, at codingPath: [any CodingKey]) -> JSONError {
    if json.isNull {
        return JSONError(
            code: .valueNotFound,
            message: "expected \(expected), found null",
            path: codingPath.pathDescription
        )
    }
    return JSONError(
        code: .typeMismatch,
        message: "expected \(expected), found \(json.typeName)",
        path: codingPath.pathDescription
    )
}

// The primitives' readers, for single-value and keyed containers alike. `path` names the value in an error and is
// made only then: a keyed container's member path is its own path and the key, a new array each time.

/// `json` as a Bool, or a mismatch error at `path()`.
private func bool(from json: JSONValue, at path: () -> [any CodingKey]) throws -> Bool {
    guard let flag = json.boolValue else { throw mismatch("a bool", found: json, at: path()) }
    return flag
}

/// `json` as a String, or a mismatch error at `path()`.
private func string(from json: JSONValue, at path: () -> [any CodingKey]) throws -> String {
    guard let text = json.stringValue else { throw mismatch("a string", found: json, at: path()) }
    return text
}

/// `json` as a Double (an integer too), or a mismatch error at `path()`.
private func number(from json: JSONValue, at path: () -> [any CodingKey]) throws -> Double {
    guard let number = json.doubleValue else { throw mismatch("a number", found: json, at: path()) }
    return number
}

/// `json` as a `T` when it holds an integer `T` holds exactly (a floating-point number too, with no fraction), or an
/// error at `path()`: a mismatch for another kind of value, `dataCorrupted` for a number `T` cannot hold.
private func integer<T: FixedWidthInteger>(
    _ type: T.Type,
    from json: JSONValue,
    at path: () -> [any CodingKey]
) throws -> T {
    switch json {
    case .int(let number):
        if let exact = T(exactly: number) { return exact }
    case .double(let number):
        if let exact = T(exactly: number) { return exact }
    default:
        throw mismatch("an integer", found: json, at: path())
    }
    throw JSONError(
        code: .dataCorrupted,
        message: "\(json) does not fit in \(T.self)",
        path: path().pathDescription
    )
}

private struct IndexKey: CodingKey {
    var stringValue: String { "\(intValue!)" }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct ValueDecoder: Decoder {
    let json: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = json else { throw mismatch("an object", found: json, at: codingPath) }
        let object = ObjectMembers(members: members, codingPath: codingPath)
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = json else { throw mismatch("an array", found: json, at: codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(json: json, codingPath: codingPath)
    }
}

/// The members of one JSON object as a keyed container reads them, and the path to the object. One reference for the
/// container to hold: the standard library's box copies its container around each member it reads and destroys the
/// copy after, which for the object's three storages, the path and the case beside them was five retains and five
/// releases through the container's value witnesses (about 260 instructions per member read, callgrind).
///
/// For a case's arguments (``CaseArguments``) it also notes which members the decoding read, for the check for
/// unknown members.
private class ObjectMembers {
    final let members: JSONObject
    final let codingPath: [any CodingKey]
    /// Whether the members read are noted, for the check for unknown members.
    final let notesMembers: Bool
    /// Whether the decoding listed every key (`allKeys`): it then reads what it chooses, and nothing is unknown.
    final var isAll = false
    /// The first member read, and the others: most cases take one argument, whose name needs no array.
    private final var firstName: String?
    private final var otherNames: [String] = []

    init(members: JSONObject, codingPath: [any CodingKey], notesMembers: Bool = false) {
        self.members = members
        self.codingPath = codingPath
        self.notesMembers = notesMembers
    }

    /// Notes that the member `name` was read, when members read are noted.
    final func note(_ name: String) {
        guard notesMembers else { return }
        guard let firstName else {
            firstName = name
            return
        }
        if firstName != name, !otherNames.contains(name) { otherNames.append(name) }
    }

    /// Whether the member `name` was read.
    final func hasRead(_ name: String) -> Bool {
        firstName == name || otherNames.contains(name)
    }

    /// Whether any member was read.
    final var hasReadAny: Bool { firstName != nil }
}

/// A case being decoded (``JSONValueDecoder/decode(_:case:arguments:)``): its name and arguments, and the members of
/// the arguments its decoding has read. One reference for the case's decoder and its containers to hold: the decoder
/// then fits an existential's inline buffer (no box of its own is allocated), each copy of either is one retain, and
/// the case's keyed container for the arguments holds this same object, not a copy of them.
private final class CaseArguments: ObjectMembers {
    let name: String
    /// Whether the arguments were opened as a keyed container at all.
    var isOpened = false

    /// The arguments are the members; their paths start at the arguments (`text`, not `onChangedFilter.text`): the
    /// case's name is not a member anyone sent.
    init(name: String, arguments: JSONObject, notesMembers: Bool) {
        self.name = name
        super.init(members: arguments, codingPath: [], notesMembers: notesMembers)
    }

    var arguments: JSONObject { members }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: ObjectMembers

    var codingPath: [any CodingKey] { object.codingPath }

    var allKeys: [Key] {
        if object.notesMembers { object.isAll = true }
        // A loop, not `compactMap`: `Key` is known only at run time here, where `compactMap` is not specialized
        // (it cost about 3,000 instructions for an intent's one key).
        var keys: [Key] = []
        for name in object.members.keys {
            if let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        let name = key.stringValue
        object.note(name)
        return object.members.index(forKey: name) != nil
    }

    private func member(_ key: Key) throws -> JSONValue {
        let name = key.stringValue
        object.note(name)
        guard let value = object.members[name] else {
            throw JSONError(
                code: .keyNotFound,
                message: "missing member \"\(name)\"",
                path: path(to: key).pathDescription
            )
        }
        return value
    }

    /// The path of the member `key`: made for an error, or for a member that decodes itself.
    private func path(to key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(type, from: member(key), codingPath: path(to: key))
    }

    // Members of the standard library's types are read here: through the generic `decode`, each would build a
    // decoder and a boxed single-value container for one string (an intent's argument, on every call). Nor is a
    // single-value container made for them: it held the key as an existential, copied in and destroyed after.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try bool(from: member(key), at: { path(to: key) })
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try string(from: member(key), at: { path(to: key) })
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try number(from: member(key), at: { path(to: key) })
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integerMember(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integerMember(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integerMember(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integerMember(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integerMember(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integerMember(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integerMember(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integerMember(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integerMember(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integerMember(type, forKey: key) }

    private func integerMember<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T {
        try integer(type, from: member(key), at: { path(to: key) })
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(json: member(key), codingPath: path(to: key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(json: member(key), codingPath: path(to: key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(json: object.members["super"] ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let name = key.stringValue
        object.note(name)
        return ValueDecoder(json: object.members[name] ?? .null, codingPath: path(to: key))
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [IndexKey(currentIndex)]
        guard !isAtEnd else {
            throw JSONError(code: .valueNotFound, message: "the array has no more elements", path: path.pathDescription)
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (json, path) = try next()
        return try decodeValue(type, from: json, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (json, path) = try next()
        return try ValueDecoder(json: json, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (json, path) = try next()
        return try ValueDecoder(json: json, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (json, path) = try next()
        return ValueDecoder(json: json, codingPath: path)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let json: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { json.isNull }

    func decode(_ type: Bool.Type) throws -> Bool { try bool(from: json, at: { codingPath }) }
    func decode(_ type: String.Type) throws -> String { try string(from: json, at: { codingPath }) }
    func decode(_ type: Double.Type) throws -> Double { try number(from: json, at: { codingPath }) }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type, from: json, at: { codingPath }) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type, from: json, at: { codingPath }) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(type, from: json, codingPath: codingPath)
    }
}

// MARK: - An enum case, read without its wrapper object

/// The decoder of `{name: arguments}` that holds the two parts, not the object: the top-level container lists its one
/// key without walking a member list, and hands `arguments` to the case's nested container as they are. What a
/// synthesized enum does not ask for is read from the object, built then.
private struct CaseDecoder: Decoder {
    let read: CaseArguments
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(CaseContainer<Key>(read: read))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(json: .object([read.name: .object(read.arguments)]), codingPath: []).unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(json: .object([read.name: .object(read.arguments)]), codingPath: [])
    }
}

private struct CaseContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let read: CaseArguments
    var codingPath: [any CodingKey] { [] }
    private var name: String { read.name }
    private var arguments: JSONObject { read.arguments }

    var allKeys: [Key] { keptKeys(of: Key.self, forCase: name) }

    func contains(_ key: Key) -> Bool { key.stringValue == name }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        guard key.stringValue == name else { return try object.nestedContainer(keyedBy: type, forKey: key) }
        read.isOpened = true
        // The arguments' container reads them where the case keeps them, and notes there what it reads.
        return KeyedDecodingContainer(KeyedContainer<NestedKey>(object: read))
    }

    // MARK: What a synthesized enum does not ask for

    /// The object itself, for everything else.
    private var object: KeyedContainer<Key> {
        KeyedContainer(object: ObjectMembers(members: [name: .object(arguments)], codingPath: []))
    }

    func decodeNil(forKey key: Key) throws -> Bool { try object.decodeNil(forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try object.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try object.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try object.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try object.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try object.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try object.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try object.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try object.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try object.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try object.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try object.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try object.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try object.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try object.decode(type, forKey: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try object.decode(type, forKey: key) }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try object.nestedUnkeyedContainer(forKey: key)
    }

    func superDecoder() throws -> any Decoder { try object.superDecoder() }
    func superDecoder(forKey key: Key) throws -> any Decoder { try object.superDecoder(forKey: key) }
}

// MARK: - The keys of a case, made once

/// The `allKeys` of each case a ``CaseContainer`` was asked for, by key type, made on the first call and kept for the
/// life of the process.
///
/// The container runs unspecialized for the plugin's key type, so building `[key]` on each call asked the runtime for
/// the metadata of three types (`Optional<Key>`, `Array<Key>` and the array's storage class), about 1,000
/// instructions per decoded intent; finding the kept array asks for none. Key types come from plugins, whose images
/// stay loaded for the life of the process (a type's identity is never another's), and the names decoded are only
/// those the host let through: an intent's name is one its enum lists, a route one a loaded feature declares. So the
/// table holds at most one entry per case of the enums of the images loaded, whatever clients send.
private let keptCaseKeys = Mutex<[ObjectIdentifier: [KeptCaseKeys]]>([:])

/// `allKeys` for the case `name` of the key type `type`: `[Key(stringValue: name)]`, or `[]` when there is no such
/// key.
///
/// The look-up names no type made of `Key` but the kept entry's class: a generic type in this function's body (the
/// lock's result, an optional key) would be asked of the runtime on every call, found or not.
private func keptKeys<Key: CodingKey>(of type: Key.Type, forCase name: String) -> [Key] {
    let keyType = ObjectIdentifier(type)
    let found = keptCaseKeys.withLock { kept in kept[keyType]?.first { $0.name == name } }
    guard let found else { return keepKeys(of: type, forCase: name) }
    // Every entry kept under `keyType` was made by `keepKeys` for this `Key`: the cast cannot fail, and skipping its
    // check skips a metadata look-up too.
    return unsafeDowncast(found, to: KeptCaseKeysOf<Key>.self).keys
}

/// Makes `allKeys` for the case `name` of the key type `type` and keeps it when the key type has such a key. The key
/// is made before the lock is taken: `init(stringValue:)` is the plugin's code.
private func keepKeys<Key: CodingKey>(of type: Key.Type, forCase name: String) -> [Key] {
    guard let key = Key(stringValue: name) else { return [] }
    keptCaseKeys.withLock { kept in
        // Another thread may have kept the same case meanwhile: one entry is enough.
        guard kept[ObjectIdentifier(type)]?.contains(where: { $0.name == name }) != true else { return }
        kept[ObjectIdentifier(type), default: []].append(KeptCaseKeysOf(name: name, keys: [key]))
    }
    return [key]
}

/// The kept `allKeys` of one case: its name here, for the look-up; its keys in ``KeptCaseKeysOf``, typed.
private class KeptCaseKeys {
    let name: String

    init(name: String) {
        self.name = name
    }
}

/// The kept `allKeys` of one case of the key type `Key`.
private final class KeptCaseKeysOf<Key: CodingKey>: KeptCaseKeys {
    let keys: [Key]

    init(name: String, keys: [Key]) {
        self.keys = keys
        super.init(name: name)
    }
}
