import NavHostClient
import NavHostJSON

/// The commonest slip with `key=value` words: a value that reads as JSON (`1`, `true`, `null`) where the daemon wanted
/// a string, as with `productID=1`. The daemon's error names the member; the hint says how to send the string.
enum QuotingHint {
    /// A line for standard error after `error`, when it refused the value of one of `words` for not being a string.
    static func line(after error: NavHostClientError, words: [String]) -> String? {
        guard case .string(let reason)? = error.parameters["reason"],
            let expected = reason.firstRange(of: "expected a string, found "),
            let at = reason.firstRange(of: " (at "), expected.upperBound <= at.lowerBound, reason.hasSuffix(")")
        else { return nil }
        let key = reason[at.upperBound..<reason.index(before: reason.endIndex)]
        for word in words {
            guard let equals = word.firstIndex(of: "="), word[..<equals] == key else { continue }
            let value = word[word.index(after: equals)...]
            guard let json = (try? KeyValueArguments.parse([word]))?[String(key)], json.stringValue == nil else {
                return nil
            }
            return "hint: \(word) sent \(value) as JSON; to send the string, write \(key)='\"\(value)\"'"
        }
        return nil
    }
}
