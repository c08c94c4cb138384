import NavHostJSON

/// JSON for people: one member or element per line, indented by two spaces, keys in the order they came.
///
/// Scalars are written by json-c (`JSONValue.serializedString()`), so strings are escaped exactly as on the wire;
/// only the layout is done here.
enum JSONPrettyPrinter {
    /// The lines of `value`, each prefixed with `indent`.
    static func lines(_ value: JSONValue, indent: String = "") -> [String] {
        var lines: [String] = []
        append(value, prefix: "", indent: indent, suffix: "", to: &lines)
        return lines
    }

    private static func append(
        _ value: JSONValue,
        prefix: String,
        indent: String,
        suffix: String,
        to lines: inout [String]
    ) {
        switch value {
        case .object(let members) where !members.isEmpty:
            lines.append("\(indent)\(prefix){")
            for (offset, member) in members.enumerated() {
                let comma = offset < members.count - 1 ? "," : ""
                let key = scalar(.string(member.key))
                append(member.value, prefix: "\(key): ", indent: indent + "  ", suffix: comma, to: &lines)
            }
            lines.append("\(indent)}\(suffix)")
        case .array(let elements) where !elements.isEmpty:
            lines.append("\(indent)\(prefix)[")
            for (offset, element) in elements.enumerated() {
                let comma = offset < elements.count - 1 ? "," : ""
                append(element, prefix: "", indent: indent + "  ", suffix: comma, to: &lines)
            }
            lines.append("\(indent)]\(suffix)")
        default:
            lines.append("\(indent)\(prefix)\(scalar(value))\(suffix)")
        }
    }

    /// A scalar, or an empty object or array, in its compact form.
    private static func scalar(_ value: JSONValue) -> String {
        (try? value.serializedString()) ?? "null"
    }
}
