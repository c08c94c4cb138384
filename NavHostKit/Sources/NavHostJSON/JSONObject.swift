/// The members of a JSON object, in the order they were inserted.
///
/// A `JSONObject` is a dictionary from member names to ``JSONValue``s that remembers the order of its keys, so what
/// is serialized reads in the order it was built or received. It is NavHost's own type, not another package's: its
/// layout is the SDK's to change without breaking plugins built against an older minor version.
///
/// ```swift
/// var parameters: JSONObject = ["productID": "p1"]
/// parameters["quantity"] = 2
/// parameters.keys   // ["productID", "quantity"]
/// ```
///
/// Equality compares members in order, as the wire shows them.
public struct JSONObject: Sendable {
    // MARK: Private Properties

    private var storedKeys: [String]
    private var storedValues: [JSONValue]
    /// Positions by key, kept once the object is larger than ``indexThreshold``; small objects are searched.
    private var positions: [String: Int]?

    /// Up to this many members, a key is found by a linear search, which beats hashing for the small objects that
    /// make up almost all of NavHost's traffic.
    private static var indexThreshold: Int { 12 }

    // MARK: Initialization

    /// Creates an empty object.
    public init() {
        storedKeys = []
        storedValues = []
        positions = nil
    }

    /// Creates an empty object with room for `minimumCapacity` members.
    public init(minimumCapacity: Int) {
        self.init()
        reserveCapacity(minimumCapacity)
    }

    /// Creates an object from `members`, keeping the first position of a repeated key and the value `combine`
    /// chooses for it.
    public init<S: Sequence>(
        _ members: S,
        uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows where S.Element == (String, JSONValue) {
        // Room for all at once: a literal of five members would otherwise grow both arrays three times.
        self.init(minimumCapacity: members.underestimatedCount)
        for (key, value) in members {
            if let position = index(forKey: key) {
                storedValues[position] = try combine(storedValues[position], value)
            } else {
                append(key, value)
            }
        }
    }

    /// Creates an object that takes `keys` and `values` as they are: the keys must be unique (the encoder's, which
    /// replaces a member set twice, are), and as many as the values.
    init(uniqueKeys keys: [String], values: [JSONValue]) {
        storedKeys = keys
        storedValues = values
        positions = nil
        rebuildPositions()
    }

    /// Creates an object from `members`, whose keys must be unique.
    public init<S: Sequence>(uniqueKeysWithValues members: S) where S.Element == (String, JSONValue) {
        self.init(minimumCapacity: members.underestimatedCount)
        for (key, value) in members {
            precondition(index(forKey: key) == nil, "duplicate key \"\(key)\" in JSONObject(uniqueKeysWithValues:)")
            append(key, value)
        }
    }

    // MARK: Public Properties

    /// The member names, in order.
    public var keys: [String] { storedKeys }

    /// The member values, in the order of their keys.
    public var values: [JSONValue] { storedValues }

    /// The members as key-value pairs, in order.
    public var elements: [(key: String, value: JSONValue)] {
        zip(storedKeys, storedValues).map { (key: $0, value: $1) }
    }

    // MARK: Public Functions

    /// The value of the member named `key`; setting `nil` removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { index(forKey: key).map { storedValues[$0] } }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// The value of the member named `key`, or `defaultValue` when there is none.
    public subscript(key: String, default defaultValue: @autoclosure () -> JSONValue) -> JSONValue {
        get { self[key] ?? defaultValue() }
        set { updateValue(newValue, forKey: key) }
    }

    /// The position of the member named `key`, or `nil`.
    public func index(forKey key: String) -> Int? {
        if let positions { return positions[key] }
        return storedKeys.firstIndex(of: key)
    }

    /// Sets the member named `key` to `value`, in place when it exists, at the end otherwise.
    ///
    /// - Returns: The value it replaced, or `nil` when the member is new.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let position = index(forKey: key) {
            let old = storedValues[position]
            storedValues[position] = value
            return old
        }
        append(key, value)
        return nil
    }

    /// Removes the member named `key`, keeping the order of the others.
    ///
    /// - Returns: The value removed, or `nil` when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = index(forKey: key) else { return nil }
        storedKeys.remove(at: position)
        let removed = storedValues.remove(at: position)
        rebuildPositions()
        return removed
    }

    /// Removes every member.
    public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
        storedKeys.removeAll(keepingCapacity: keepCapacity)
        storedValues.removeAll(keepingCapacity: keepCapacity)
        positions = nil
    }

    /// Makes room for `minimumCapacity` members.
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        storedKeys.reserveCapacity(minimumCapacity)
        storedValues.reserveCapacity(minimumCapacity)
    }

    /// Adds the members of `other`; for a key both hold, `combine` chooses the value, which keeps its position.
    public mutating func merge<S: Sequence>(
        _ other: S,
        uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows where S.Element == (key: String, value: JSONValue) {
        for (key, value) in other {
            if let position = index(forKey: key) {
                storedValues[position] = try combine(storedValues[position], value)
            } else {
                append(key, value)
            }
        }
    }

    /// This object with the members of `other` added, as ``merge(_:uniquingKeysWith:)`` adds them.
    public func merging<S: Sequence>(
        _ other: S,
        uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows -> JSONObject where S.Element == (key: String, value: JSONValue) {
        var merged = self
        try merged.merge(other, uniquingKeysWith: combine)
        return merged
    }

    /// The members for which `isIncluded` holds, in order.
    public func filter(_ isIncluded: ((key: String, value: JSONValue)) throws -> Bool) rethrows -> JSONObject {
        var kept = JSONObject()
        for member in self where try isIncluded(member) { kept.append(member.key, member.value) }
        return kept
    }

    /// The same keys in the same order, each value transformed.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var mapped = self
        mapped.storedValues = try storedValues.map(transform)
        return mapped
    }
}

// MARK: - Private Functions

extension JSONObject {
    private mutating func append(_ key: String, _ value: JSONValue) {
        storedKeys.append(key)
        storedValues.append(value)
        if positions != nil {
            positions?[key] = storedKeys.count - 1
        } else if storedKeys.count > Self.indexThreshold {
            rebuildPositions()
        }
    }

    private mutating func rebuildPositions() {
        guard storedKeys.count > Self.indexThreshold else {
            positions = nil
            return
        }
        var rebuilt = [String: Int](minimumCapacity: storedKeys.count)
        for (position, key) in storedKeys.enumerated() { rebuilt[key] = position }
        positions = rebuilt
    }
}

// MARK: - RandomAccessCollection

extension JSONObject: RandomAccessCollection {
    public typealias Element = (key: String, value: JSONValue)
    public typealias Index = Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { storedKeys.count }

    public subscript(position: Int) -> (key: String, value: JSONValue) {
        (key: storedKeys[position], value: storedValues[position])
    }

    public var count: Int { storedKeys.count }
    public var isEmpty: Bool { storedKeys.isEmpty }
}

// MARK: - Hashable

extension JSONObject: Hashable {
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.storedKeys == rhs.storedKeys && lhs.storedValues == rhs.storedValues
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storedKeys)
        hasher.combine(storedValues)
    }
}

// MARK: - ExpressibleByDictionaryLiteral

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a literal; a repeated key keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements, uniquingKeysWith: { _, last in last })
    }
}

// MARK: - CustomStringConvertible

extension JSONObject: CustomStringConvertible {
    /// The object's compact JSON text.
    public var description: String { JSONValue.object(self).description }
}
