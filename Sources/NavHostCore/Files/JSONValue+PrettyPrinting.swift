package import NavHostJSON

extension JSONValue {
    /// The value as JSON for people to read: one member or element per line, indented by four spaces, ending with
    /// a newline. Arrays of scalars stay on one line, as in hand-written manifests. Scalars are written by json-c.
    package func prettyPrinted() throws(JSONError) -> String {
        var text = ""
        try write(to: &text, indent: "")
        return text + "\n"
    }

    private func write(to text: inout String, indent: String) throws(JSONError) {
        let inner = indent + "    "
        switch self {
        case .object(let members) where !members.isEmpty:
            text += "{\n"
            for (index, (key, value)) in members.enumerated() {
                text += inner + (try JSONValue.string(key).serializedString()) + ": "
                try value.write(to: &text, indent: inner)
                text += index == members.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        case .array(let elements) where elements.contains(where: \.isContainer):
            text += "[\n"
            for (index, element) in elements.enumerated() {
                text += inner
                try element.write(to: &text, indent: inner)
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
