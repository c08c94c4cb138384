/// Reads a JSON text a character at a time and says which characters belong to its strings, quotes included: what
/// the checks of a `key=value` value look past (a bare `.`, an integer out of range, a bracket left open) when they
/// look at the text outside its strings.
package struct JSONStringTracker: Sendable {
    /// Whether the characters taken so far end inside a string: its closing quote has not come.
    package private(set) var isInString = false
    private var escaped = false

    package init() {}

    /// Takes the text's next character; returns whether it belongs to a string (its quotes count as its own).
    package mutating func take(_ character: Character) -> Bool {
        if isInString {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                isInString = false
            }
            return true
        }
        if character == "\"" { isInString = true }
        return isInString
    }
}
