import CNavHostBench
import Glibc

/// A JSON value for the results file, written with json-c.
indirect enum ReportValue {
    case object([(String, ReportValue)])
    case array([ReportValue])
    case string(String)
    case number(Double)
    case integer(Int)
    case bool(Bool)
    case null

    /// A number rounded to `decimals` places, or `null` when there is none.
    static func rounded(_ value: Double?, _ decimals: Int = 3) -> ReportValue {
        guard let value, value.isFinite else { return .null }
        return .number(value.rounded(toPlaces: decimals))
    }

    /// The value as indented JSON text, ending with a newline.
    func prettyText() -> String {
        let object = makeObject()
        defer { json_object_put(object) }
        let flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE
        return String(cString: json_object_to_json_string_ext(object, flags)) + "\n"
    }

    private func makeObject() -> OpaquePointer? {
        switch self {
        case .object(let members):
            let object = json_object_new_object()
            for (key, value) in members { json_object_object_add(object, key, value.makeObject()) }
            return object
        case .array(let elements):
            let array = json_object_new_array()
            for element in elements { json_object_array_add(array, element.makeObject()) }
            return array
        case .string(let text):
            return json_object_new_string(text)
        case .number(let number):
            // Swift's description is the shortest text that reads back as the same number; json-c's own is %.17g.
            return number.description.withCString { json_object_new_double_s(number, $0) }
        case .integer(let number):
            return json_object_new_int64(Int64(number))
        case .bool(let flag):
            return json_object_new_boolean(flag ? 1 : 0)
        case .null:
            return nil
        }
    }
}

extension Double {
    /// The value rounded to `places` decimal places.
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }

    /// The value with exactly `places` decimals, as `printf("%.*f")` writes it.
    func fixed(_ places: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = withVaList([Int32(places), self]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        return string(fromCString: buffer)
    }
}
