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
        guard let first = text.first, startsJSON(first), !holdsBareDot(text),
            let parsed = try? JSONParser().parse(text)
        else {
            return .string(text)
        }
        return parsed
    }

    /// Whether `text` has a `.` that no digit follows, outside a string: `1.` or `[1.]`, which json-c reads as a
    /// number though JSON has none such. Such a value is the text the user wrote, a string, as any other that is
    /// not JSON.
    private static func holdsBareDot(_ text: String) -> Bool {
        var inString = false
        var escaped = false
        var previous: UInt8 = 0
        for byte in text.utf8 {
            defer { previous = byte }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
            } else if previous == UInt8(ascii: "."), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                return true
            }
        }
        return !inString && previous == UInt8(ascii: ".")
    }

    /// Whether a JSON text can begin with `character`: json-c also reads single-quoted strings, which would turn
    /// `it's` into something else than the user wrote, so a value is only tried as JSON when it begins like
    /// standard JSON.
    private static func startsJSON(_ character: Character) -> Bool {
        "{[\"-0123456789tfn".contains(character)
    }
}
