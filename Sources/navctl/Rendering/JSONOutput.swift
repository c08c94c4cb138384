import NavHostClient
import NavHostJSON

/// `--json` output: one compact JSON object per line, in the wire form of the reply it stands for.
enum JSONOutput {
    /// Prints `members`, each value encoded with the JSON layer, as one line.
    static func print(_ members: KeyValuePairs<String, any Encodable>) throws(NavHostClientError) {
        var object = JSONObject()
        for (key, value) in members {
            object[key] = try encode(value)
        }
        try print(object)
    }

    /// Prints a `Codable` reply whose encoded form is the reply's parameters, as one line.
    static func print(_ reply: some Encodable) throws(NavHostClientError) {
        try print(encode(reply).objectValue ?? [:])
    }

    private static func print(_ object: JSONObject) throws(NavHostClientError) {
        do {
            Console.write(Self.escapingC1(try JSONValue.object(object).serializedString()) + "\n")
        } catch {
            throw NavHostClientError(
                code: .protocolViolation,
                message: "cannot print the reply: \(error)",
                cause: error
            )
        }
    }

    /// `json` with DEL and the C1 controls (U+007F to U+009F), which JSON lets a string hold raw and json-c writes
    /// so, escaped as `\u00XX`: the same text once parsed, and nothing a terminal would take as a command (U+009B is
    /// a control sequence's start). They can only be in strings: JSON's own syntax is ASCII.
    static func escapingC1(_ json: String) -> String {
        Console.escaping(in: json, where: { (0x7F...0x9F).contains($0.value) }) {
            "\\u00\(String($0.value, radix: 16))"
        }
    }

    private static func encode(_ value: any Encodable) throws(NavHostClientError) -> JSONValue {
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            throw NavHostClientError(
                code: .protocolViolation,
                message: "cannot print the reply: \(error)",
                cause: error
            )
        }
    }
}
