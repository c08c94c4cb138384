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
    /// - Throws: ``Invalid`` for a word without `=`, with an empty key, with a key given twice, or with a JSON value
    ///   that holds an integer outside `Int64` (`id=99999999999999999999`), which would arrive as another number
    ///   (`1e+20`).
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
            let text = String(word[word.index(after: equals)...])
            let value = value(text)
            if value != .string(text), let integer = integerBeyond64Bits(in: text) {
                throw Invalid(
                    description: "\(key)=\(text): the integer \(integer) is outside the 64-bit integers and would "
                        + "arrive as another number; quote it as JSON text (\"\(integer)\") to send its digits"
                )
            }
            object[key] = value
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
        var strings = JSONStringTracker()
        var previous: Character = " "
        for character in text {
            defer { previous = character }
            if strings.take(character) { continue }
            if previous == ".", !character.isASCIIDigit { return true }
        }
        return !strings.isInString && previous == "."
    }

    /// The first integer of the JSON text `text`, outside its strings, that `Int64` does not hold: json-c reads it as
    /// a floating-point number (``JSONValue``), which is not the number written.
    private static func integerBeyond64Bits(in text: String) -> Substring? {
        var strings = JSONStringTracker()
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            guard !strings.take(character), character == "-" || character.isASCIIDigit else {
                index = text.index(after: index)
                continue
            }
            let number = text[index...].prefix { $0.isASCIIDigit || "-+.eE".contains($0) }
            if !number.contains(where: { ".eE".contains($0) }), Int64(number) == nil { return number }
            index = number.endIndex
        }
        return nil
    }

    /// Whether a JSON text can begin with `character`: json-c also reads single-quoted strings, which would turn
    /// `it's` into something else than the user wrote, so a value is only tried as JSON when it begins like
    /// standard JSON.
    private static func startsJSON(_ character: Character) -> Bool {
        "{[\"-0123456789tfn".contains(character)
    }
}

extension Character {
    /// Whether this is one of the ASCII digits 0 to 9.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
