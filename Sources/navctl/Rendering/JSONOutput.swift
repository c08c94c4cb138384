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
            Console.write(try JSONValue.object(object).serializedString() + "\n")
        } catch {
            throw NavHostClientError(
                code: .protocolViolation,
                message: "cannot print the reply: \(error)",
                cause: error
            )
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
