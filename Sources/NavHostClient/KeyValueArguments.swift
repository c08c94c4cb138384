public import NavHostJSON

/// `key=value` words as a JSON object: route parameters and intent arguments, as navctl and the inspector page read
/// them.
///
/// The value is read as JSON when it is valid JSON (`count=3`, `enabled=true`, `note=null`, `tags=["a","b"]`,
/// `filter={"min":2}`, `zip='"01234"'`), and as a plain string otherwise (`text=lamp`, `name=Ada Lovelace` when
/// quoted for the shell, `empty=` is the empty string). A key may appear once.
public enum KeyValueArguments {
    /// Why words are not `key=value` pairs.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, for a person.
        public var description: String
    }

    /// The rule in words, for help texts.
    public static let rule = """
        key=value: the value is JSON when it parses as JSON (3, true, null, "quoted", [1,2], {"a":1}), otherwise \
        a plain string. To pass a string that looks like JSON, quote it as JSON: zip='"01234"'.
        """

    /// Parses `words` into an object, keys in the order given.
    ///
    /// - Throws: ``Invalid`` for a word without `=`, with an empty key, or with a key given twice.
    public static func parse(_ words: [String]) throws(Invalid) -> JSONObject {
        var object = JSONObject()
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                throw Invalid(description: "expected key=value, got \"\(word)\"")
            }
            let key = String(word[..<equals])
            guard !key.isEmpty else {
                throw Invalid(description: "expected key=value, got \"\(word)\" (the key is empty)")
            }
            guard object[key] == nil else { throw Invalid(description: "\"\(key)\" is given twice") }
            object[key] = value(String(word[word.index(after: equals)...]))
        }
        return object
    }

    /// A value's JSON reading, or the text itself as a string.
    public static func value(_ text: String) -> JSONValue {
        guard let first = text.first, startsJSON(first), let parsed = try? JSONParser().parse(text) else {
            return .string(text)
        }
        return parsed
    }

    /// Whether a JSON text can begin with `character`: json-c also reads single-quoted strings, which would turn
    /// `it's` into something else than the user wrote, so a value is only tried as JSON when it begins like
    /// standard JSON.
    private static func startsJSON(_ character: Character) -> Bool {
        "{[\"-0123456789tfn".contains(character)
    }
}
