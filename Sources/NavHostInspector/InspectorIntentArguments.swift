internal import NavHostClient
public import NavHostJSON

// MARK: - InspectorIntentArguments

/// The arguments the page's intent form gives, as the JSON object `Send` takes.
///
/// The text is either one JSON object (`{"text":"engine"}`) or `key=value` pairs, read by navctl's own rule
/// (``KeyValueArguments``): the value is JSON when it parses as JSON (`3`, `true`, `"quoted"`), otherwise a plain
/// string (`text=engine`). Pairs are separated by spaces, or one per line when a value holds spaces
/// (`name=Ada Lovelace`). Empty text is no arguments.
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
        let words = trimmed.split(separator: separator).map(\.trimmingWhitespace).filter { !$0.isEmpty }
        do {
            return try KeyValueArguments.parse(words)
        } catch {
            throw Invalid(description: error.description)
        }
    }
}

// MARK: - Private Functions

private extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
