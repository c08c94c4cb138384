/// One argument of an intent: its label and the JSON type a front end sends for it.
///
/// `navctl routes` and the `Routes` call show them, so that a front end can tell what `onChangedFilter` wants without
/// reading the feature's source:
///
/// ```json
/// {"name":"text","type":"string"}
/// ```
public struct IntentArgument: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The argument's label, like `text`: the key it has in a `Send`'s `arguments` (`_0` for an unlabelled value).
    public var name: String
    /// Its type in the Varlink interface notation: `string`, `int`, `float`, `bool`, `object`, `any`, `[]string` for
    /// an array, and a leading `?` for an argument that may be left out, like `?int`.
    public var type: String
    /// The values it takes, when its type is an enum with `String` raw values that lists its cases (`CaseIterable`):
    /// `["light", "dark", "system"]`; `nil` otherwise.
    public var values: [String]?

    /// Creates an argument description.
    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }

    /// Creates an argument description of an argument that takes only `values`.
    public init(name: String, type: String, values: [String]?) {
        self.name = name
        self.type = type
        self.values = values
    }

    /// `name: type`, as the Varlink interface notation writes a field; an argument that takes only some strings is
    /// written as a Varlink enum, `theme: (light, dark, system)`.
    public var description: String {
        guard let values, type == "string" || type == "?string" else { return "\(name): \(type)" }
        return "\(name): \(type.hasPrefix("?") ? "?" : "")(\(values.joined(separator: ", ")))"
    }
}

extension ViewModelIntent {
    /// The arguments of each case, by case name, in the order the case declares them; a case without arguments maps
    /// to an empty list.
    ///
    /// Learned from the enum's synthesized `Decodable` conformance, by decoding each case of ``names`` from a decoder
    /// that writes down what is asked of it: nothing to declare. An argument of a type of the feature's own is an
    /// `object` (or `[]…`, or the type it decodes itself from, like `string` for an enum with `String` raw values).
    /// What comes after an argument that cannot be decoded from placeholder values (an enum whose raw values do not
    /// include an empty string or zero) is not listed; neither is anything of a case whose `init(from:)` is written
    /// by hand and does not read its arguments by key.
    public static var arguments: [String: [IntentArgument]] {
        var arguments: [String: [IntentArgument]] = [:]
        for name in names {
            arguments[name] = IntentArgumentProbe.arguments(of: Self.self, case: name)
        }
        return arguments
    }
}

extension IntentArgument {
    /// Writes `arguments` into `container` under `key`, as an object by intent name in the order of `intents` (names
    /// it does not list after them, sorted), not a dictionary's: the same route is written the same way every time.
    /// Writes nothing when `arguments` is empty. ``ScreenDescriptor`` and the `Routes` reply write their
    /// `intentArguments` so.
    ///
    /// - Since: NavHostKit 2.2.0.
    public static func encode<Key: CodingKey>(
        _ arguments: [String: [IntentArgument]],
        orderedAs intents: [String],
        into container: inout KeyedEncodingContainer<Key>,
        forKey key: Key
    ) throws {
        guard !arguments.isEmpty else { return }
        var byIntent = container.nestedContainer(keyedBy: IntentNameKey.self, forKey: key)
        let order = intents.filter { arguments[$0] != nil }
        for name in order + arguments.keys.filter({ !order.contains($0) }).sorted() {
            try byIntent.encode(arguments[name], forKey: IntentNameKey(stringValue: name))
        }
    }
}

/// An intent's name as a key of an `intentArguments` object.
private struct IntentNameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) { nil }
}
