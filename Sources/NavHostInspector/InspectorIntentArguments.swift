public import NavHostJSON

// MARK: - InspectorIntentArguments

/// The arguments the page's intent form gives, as the JSON object `Send` takes.
///
/// The text is either one JSON object (`{"text":"engine"}`) or `key=value` pairs, read as navctl reads them: the
/// value is JSON when it parses as JSON (`3`, `true`, `"quoted"`), otherwise a plain string (`text=engine`). Pairs
/// are separated by spaces, or one per line when a value holds spaces (`name=Ada Lovelace`). Empty text is no
/// arguments.
public enum InspectorIntentArguments {
    /// Why a text is not arguments.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, for a person.
        public var description: String
    }

    /// Reads `text` as arguments.
    public static func parse(_ text: String) throws(Invalid) -> JSONObject {
        let trimmed = text.trimmingWhitespace
        if trimmed.isEmpty { return [:] }
        if trimmed.hasPrefix("{") {
            guard let parsed = try? JSONParser().parse(trimmed), let object = parsed.objectValue else {
                throw Invalid(description: "the arguments begin with { but are not one JSON object")
            }
            return object
        }
        let separator: Character = trimmed.contains("\n") ? "\n" : " "
        let pairs = trimmed.split(separator: separator).map(\.trimmingWhitespace).filter { !$0.isEmpty }
        var arguments = JSONObject()
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw Invalid(description: "expected key=value, got \"\(pair)\"")
            }
            let key = String(pair[..<equals])
            guard arguments[key] == nil else { throw Invalid(description: "\"\(key)\" is given twice") }
            arguments[key] = value(String(pair[pair.index(after: equals)...]))
        }
        return arguments
    }
}

// MARK: - Private Functions

private extension InspectorIntentArguments {
    /// The value's JSON reading when it begins like standard JSON and parses, otherwise the text as a string.
    static func value(_ text: String) -> JSONValue {
        guard let first = text.first, "{[\"-0123456789tfn".contains(first), let parsed = try? JSONParser().parse(text)
        else { return .string(text) }
        return parsed
    }
}

private extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
