internal import NavHostClient
public import NavHostJSON

// MARK: - InspectorIntentArguments

/// The arguments the page's intent form gives, as the JSON object `Send` takes.
///
/// The text is either one JSON object (`{"text":"engine"}`) or `key=value` pairs, read by navctl's own rule
/// (``KeyValueArguments``): the value is JSON when it parses as JSON (`3`, `true`, `"quoted"`), otherwise a plain
/// string (`text=engine`). Pairs are separated by spaces; a word that does not begin with `key=` continues the value
/// before it, so `name=Ada Lovelace` is one pair, and so does any word while that value is a JSON string, array or
/// object not yet closed (`text="a b=1"`, `tags=["x", "y=z"]`). Text with a line break holds one pair per line, for a value whose
/// words would begin pairs (`query=a=b c=d`). Empty text is no arguments.
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
        // `\r\n` is one Character: a text from elsewhere than the page's form is split at any line break.
        // A line break the text ends with (Enter before Send) is no break between pairs.
        let pairs =
            trimmed.contains(where: \.isNewline)
            ? trimmed.split(whereSeparator: \.isNewline).map(\.trimmingWhitespace).filter { !$0.isEmpty }
            : pairs(onOneLine: trimmed)
        do {
            return try KeyValueArguments.parse(pairs)
        } catch {
            throw Invalid(description: error.description)
        }
    }
}

// MARK: - Private Functions

extension InspectorIntentArguments {
    /// The pairs of one line: a word that begins with `key=` begins a pair, and any other word continues the value
    /// before it, with the spaces between them; so does every word while that value is an open JSON string, array or
    /// object. A first word that begins no pair is a pair of its own, which ``KeyValueArguments`` refuses.
    fileprivate static func pairs(onOneLine line: String) -> [String] {
        var pairs: [String] = []
        var rest = Substring(line)
        while !rest.isEmpty {
            let spaces = rest.prefix { $0.isWhitespace }
            rest = rest.dropFirst(spaces.count)
            let word = rest.prefix { !$0.isWhitespace }
            rest = rest.dropFirst(word.count)
            if pairs.isEmpty || (beginsPair(word) && !holdsOpenJSON(pairs[pairs.count - 1])) {
                pairs.append(String(word))
            } else {
                pairs[pairs.count - 1] += spaces + word
            }
        }
        return pairs
    }

    /// Whether `word` begins with a key and `=`: letters, digits, `_`, `-` and `.` before the first `=`.
    private static func beginsPair(_ word: Substring) -> Bool {
        guard let equals = word.firstIndex(of: "=") else { return false }
        let key = word[..<equals]
        return !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }

    /// Whether the value of `pair` (after its first `=`) begins a JSON string, array or object that it does not
    /// close: a quote not yet matched, or more brackets opened than closed outside strings.
    private static func holdsOpenJSON(_ pair: String) -> Bool {
        guard let equals = pair.firstIndex(of: "="), let first = pair[pair.index(after: equals)...].first,
            first == "\"" || first == "[" || first == "{"
        else { return false }
        var depth = 0
        var strings = JSONStringTracker()
        for character in pair[pair.index(after: equals)...] {
            if strings.take(character) { continue }
            if character == "[" || character == "{" {
                depth += 1
            } else if character == "]" || character == "}" {
                depth -= 1
            }
        }
        return strings.isInString || depth > 0
    }
}

private extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
