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

    /// Creates an argument description.
    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }

    /// `name: type`, as the Varlink interface notation writes a field.
    public var description: String { "\(name): \(type)" }
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

/// An intent's name as a key of the `intentArguments` object that ``ScreenDescriptor`` and the `Routes` reply write.
public struct IntentNameKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(stringValue: String) {
        self.stringValue = stringValue
    }

    public init?(intValue: Int) { nil }
}
