internal import CJSONC

// MARK: - Reading json-c objects

extension JSONValue {
    /// Copies a json-c object tree into a Swift value without taking ownership of it.
    ///
    /// Refuses what json-c lets through but JSON has no room for: non-finite numbers and invalid UTF-8.
    init(validating object: OpaquePointer?) throws(JSONError) {
        var readsAnIntegerLimit = false
        try self.init(validating: object, readsAnIntegerLimit: &readsAnIntegerLimit)
    }

    /// ``init(validating:)``, setting `readsAnIntegerLimit` when the tree holds `Int64.min` or `UInt64.max`: json-c
    /// reads an integer beyond either as that limit, so only then may the text hold one (``JSONParser`` looks).
    init(validating object: OpaquePointer?, readsAnIntegerLimit: inout Bool) throws(JSONError) {
        guard let object else {
            self = .null
            return
        }
        switch json_object_get_type(object) {
        case json_type_null:
            self = .null
        case json_type_boolean:
            self = .bool(json_object_get_boolean(object) != 0)
        case json_type_int:
            let signed = json_object_get_int64(object)
            if signed == Int64.max, json_object_get_uint64(object) > UInt64(Int64.max) {
                let unsigned = json_object_get_uint64(object)
                if unsigned == UInt64.max { readsAnIntegerLimit = true }
                self = .double(Double(unsigned))
            } else {
                if signed == Int64.min { readsAnIntegerLimit = true }
                self = .int(signed)
            }
        case json_type_double:
            let number = json_object_get_double(object)
            guard number.isFinite else {
                throw JSONError(
                    code: .syntax,
                    message: "NaN, Infinity and numbers beyond a Double's range (about 1.8e308) are not read"
                )
            }
            self = .double(number)
        case json_type_string:
            let length = Int(json_object_get_string_len(object))
            let start = UnsafeRawPointer(json_object_get_string(object)!)
            self = .string(try Self.string(UnsafeRawBufferPointer(start: start, count: length)))
        case json_type_array:
            let count = json_object_array_length(object)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                elements.append(
                    try JSONValue(
                        validating: json_object_array_get_idx(object, index),
                        readsAnIntegerLimit: &readsAnIntegerLimit
                    )
                )
            }
            self = .array(elements)
        case json_type_object:
            var members = JSONObject()
            members.reserveCapacity(Int(json_object_object_length(object)))
            var iterator = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            while json_object_iter_equal(&iterator, &end) == 0 {
                let key = String(cString: json_object_iter_peek_name(&iterator))
                members[key] = try JSONValue(
                    validating: json_object_iter_peek_value(&iterator),
                    readsAnIntegerLimit: &readsAnIntegerLimit
                )
                json_object_iter_next(&iterator)
            }
            self = .object(members)
        default:
            self = .null
        }
    }
}

extension JSONValue {
    /// The text of a json-c string; throws ``JSONError/Code/invalidUTF8`` when it is not valid UTF-8.
    private static func string(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> String {
        // ASCII, almost every string a daemon reads, is valid as it is. `String(validating:as:)` runs the standard
        // library's generic validation unspecialized, about a thousand instructions per string.
        var isASCII = true
        for byte in bytes where byte >= 0x80 {
            isASCII = false
            break
        }
        if isASCII { return String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw JSONError(code: .invalidUTF8, message: "a string is not valid UTF-8")
        }
        return text
    }
}

// MARK: - Building json-c objects

extension JSONValue {
    /// Builds a json-c object tree the caller owns (release it with `json_object_put`); `nil` stands for `null`.
    func makeJSONCObject() throws(JSONError) -> OpaquePointer? {
        switch self {
        case .null:
            return nil
        case .bool(let flag):
            return json_object_new_boolean(flag ? 1 : 0)
        case .int(let number):
            return json_object_new_int64(number)
        case .double(let number):
            guard number.isFinite else {
                throw JSONError(code: .nonFiniteNumber, message: "\(number) has no JSON representation")
            }
            // Swift's description is the shortest text that reads back as the same Double.
            return number.description.withCString { json_object_new_double_s(number, $0) }
        case .string(let text):
            var text = text
            return text.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    json_object_new_string_len(chars.baseAddress, Int32(chars.count))
                }
            }
        case .array(let elements):
            let array = json_object_new_array_ext(Int32(clamping: elements.count))
            for element in elements {
                do throws(JSONError) {
                    json_object_array_add(array, try element.makeJSONCObject())
                } catch {
                    json_object_put(array)
                    throw error
                }
            }
            return array
        case .object(let members):
            let object = json_object_new_object()
            for (key, member) in members {
                do throws(JSONError) {
                    // json-c keeps keys as C strings: one holding U+0000 would be cut there, and collide.
                    guard !key.utf8.contains(0) else {
                        throw JSONError(
                            code: .syntax,
                            message: "the object key \(JSONValue.string(key)) holds U+0000, which a key cannot carry"
                        )
                    }
                    json_object_object_add(object, key, try member.makeJSONCObject())
                } catch {
                    json_object_put(object)
                    throw error
                }
            }
            return object
        }
    }
}
