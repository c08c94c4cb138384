package import NavHostJSON

// The one pretty-printer: manifests and plugin.json files (`navhost-plugin-tool`), and what navctl shows people.

extension JSONValue {
    /// The value as JSON for people to read: one member or element per line, each level indented by `unit` (four
    /// spaces by default), ending with a newline. Arrays of scalars stay on one line, as in hand-written manifests.
    /// Scalars are written by json-c, so strings are escaped exactly as on the wire.
    package func prettyPrinted(indentedBy unit: String = "    ") throws(JSONError) -> String {
        var text = ""
        try write(to: &text, indent: "", unit: unit)
        return text + "\n"
    }

    /// ``prettyPrinted(indentedBy:)``'s lines, each also prefixed with `margin`; a value json-c cannot write (a
    /// non-finite number) is shown as `null`.
    package func prettyPrintedLines(indentedBy unit: String = "  ", margin: String = "") -> [String] {
        let text = (try? prettyPrinted(indentedBy: unit)) ?? "null\n"
        return text.split(separator: "\n").map { margin + $0 }
    }

    private func write(to text: inout String, indent: String, unit: String) throws(JSONError) {
        let inner = indent + unit
        switch self {
        case .object(let members) where !members.isEmpty:
            text += "{\n"
            for (index, (key, value)) in members.enumerated() {
                text += inner + (try JSONValue.string(key).serializedString()) + ": "
                try value.write(to: &text, indent: inner, unit: unit)
                text += index == members.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        case .array(let elements) where elements.contains(where: \.isContainer):
            text += "[\n"
            for (index, element) in elements.enumerated() {
                text += inner
                try element.write(to: &text, indent: inner, unit: unit)
                text += index == elements.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .array(let elements):
            var parts: [String] = []
            for element in elements { parts.append(try element.serializedString()) }
            text += "[" + parts.joined(separator: ", ") + "]"
        default:
            text += try serializedString()
        }
    }

    private var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
