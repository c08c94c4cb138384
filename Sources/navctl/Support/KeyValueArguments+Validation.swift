import ArgumentParser
import NavHostClient
import NavHostJSON

extension KeyValueArguments {
    /// ``KeyValueArguments/parse(_:)`` for a command's arguments: a refusal is a usage error (exit status 64).
    static func validated(_ words: [String]) throws(ValidationError) -> JSONObject {
        do {
            return try parse(words)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
