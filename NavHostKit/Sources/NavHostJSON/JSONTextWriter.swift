/// Writes a JSON value as compact text into an array of bytes: the same bytes as `JSONValue.serializedBytes()`
/// (json-c with `JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE`), without building a json-c object tree.
///
/// Every reply of the daemon goes through here (``JSONValue/appendSerializedBytes(to:)``): building and freeing the
/// tree cost more than writing the text. It lives in the SDK's module because `JSONValue` is a resilient type
/// everywhere else, where each switch over a value or copy of one costs a value-witness call.
///
/// The rules are json-c's: no spaces; keys in their order; in strings `"` and `\` escaped, `\b`, `\f`, `\n`, `\r`,
/// `\t` by name, the other bytes below 0x20 as `\u00xx` (lowercase), `/` and everything else (DEL and non-ASCII
/// included) as they are; doubles as Swift's shortest exact text. One difference: `serializedBytes()` refuses a key
/// holding a NUL (json-c keeps keys as C strings), where this writes the whole key, the NUL escaped.
struct JSONTextWriter {
    /// The text so far.
    var bytes: [UInt8]

    /// Appends `value`.
    ///
    /// - Throws: ``JSONError/Code/nonFiniteNumber`` for a NaN or infinite `Double`; the bytes are then incomplete.
    mutating func write(_ value: JSONValue) throws(JSONError) {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .int(let number):
            write(number)
        case .double(let number):
            guard number.isFinite else {
                throw JSONError(code: .nonFiniteNumber, message: "\(number) has no JSON representation")
            }
            bytes.append(contentsOf: number.description.utf8)
        case .string(let text):
            write(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            // The two arrays, not the object's `Collection` conformance: they are walked here, specialized.
            let keys = members.keys
            let values = members.values
            bytes.append(UInt8(ascii: "{"))
            for index in keys.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(keys[index])
                bytes.append(UInt8(ascii: ":"))
                try write(values[index])
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func write(_ number: Int64) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        // 20 digits hold UInt64.max; they are produced from the last.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: digits[first...])
        }
    }

    private mutating func write(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { writeEscaped($0) }
        if written == nil {
            Array(text.utf8).withUnsafeBufferPointer { writeEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes the bytes of a string without its quotes: runs that need no escape are copied at once.
    private mutating func writeEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in text.indices {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: text[runStart..<index])
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x08: append("\\b")
            case 0x09: append("\\t")
            case 0x0A: append("\\n")
            case 0x0C: append("\\f")
            case 0x0D: append("\\r")
            default:
                append("\\u00")
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0x0F))
            }
        }
        bytes.append(contentsOf: text[runStart...])
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
