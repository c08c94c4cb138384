internal import CJSONC
internal import NIOCore
internal import NavHostJSON

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Reads a call straight from json-c's parse of its message, the envelope (`method`, the flags) without a
/// ``JSONValue`` of the whole message: the path of every call a client sends. The parameters stay json-c's
/// (``VarlinkParameterTree``): they become a value only when a handler asks for one.
///
/// It takes the common case only, and leaves everything else to the general reading, ``JSONParser`` and
/// ``VarlinkCall/init(parsing:)``, which also says what is wrong with a message that is not a call: a message with a
/// byte above 0x7F, a backslash or a single quote (json-c's UTF-8 check and escapes, a key holding `\u0000`, a key in
/// single quotes), over 64 KiB (json-c's buffer keeps the size of the longest string it read), that json-c refuses,
/// that is not a call as the specification says, or that holds `Int64.min` or `UInt64.max` (json-c reads an integer
/// beyond either as that limit, and the general reading looks at the text). What it does read, it reads as the
/// general way does: the same tokener settings and depth limit, the same values (an integer above `Int64.max` is a
/// `Double`; a number json-c made infinite is refused).
///
/// Building the message's value and reading the envelope from it cost about 3,800 instructions per call (callgrind,
/// a steady `Send`), most of it in copies of the SDK's `JSONValue` and `JSONObject`, whose layouts this module does
/// not know.
///
/// `package`, for the fuzzer's oracle, which checks that it reads every call it reads as the general reading does.
package final class VarlinkCallReader {
    /// The deepest nesting of arrays and objects accepted; the general reading's limit.
    let maxDepth: Int
    /// The method of the last call read: a client calls the same few methods, and a call of the same one shares its
    /// name instead of making it again (an allocation for a name of 16 bytes or more).
    private var lastMethod = ""

    package init(maxDepth: Int) {
        self.maxDepth = maxDepth
    }

    /// The call in `frame`, a message without its terminator; `nil` when the general reading must read it.
    func read(_ frame: ByteBuffer) -> VarlinkCall? {
        frame.withUnsafeReadableBytes { bytes in read(bytes) }
    }

    /// The call in `bytes`; `nil` when the general reading must read it.
    package func read(_ bytes: UnsafeRawBufferPointer) -> VarlinkCall? {
        var length = bytes.count
        if length > 0, bytes[length - 1] == 0 { length -= 1 }
        guard length > 0, length <= Self.largestMessage, let base = bytes.baseAddress,
            Self.isPlainASCII(UnsafeRawBufferPointer(start: base, count: length))
        else { return nil }
        guard let tokener = Self.tokener(maxDepth: maxDepth) else { return nil }
        let chars = base.assumingMemoryBound(to: CChar.self)
        let parsed = json_tokener_parse_ex(tokener, chars, Int32(length))
        let status = json_tokener_get_error(tokener)
        let end = Int(json_tokener_get_parse_end(tokener))
        // No escape was read (no backslash), so no half of a surrogate pair is left pending: the tokener is reused
        // after a failure as well.
        json_tokener_reset(tokener)
        guard status == json_tokener_success else { return nil }
        defer { json_object_put(parsed) }
        var extra = end
        while extra < length, Self.isWhitespace(bytes[extra]) { extra += 1 }
        guard extra == length else { return nil }
        return call(parsed)
    }

    // MARK: - The envelope

    /// The call `object` holds; `nil` when it is not an object, or not a call the specification allows.
    private func call(_ object: OpaquePointer?) -> VarlinkCall? {
        guard let object, json_object_get_type(object) == json_type_object else { return nil }
        var method: String?
        var parameters: OpaquePointer?
        var more = false
        var oneway = false
        var upgrade = false
        var iterator = json_object_iter_begin(object)
        var end = json_object_iter_end(object)
        while json_object_iter_equal(&iterator, &end) == 0 {
            guard let key = json_object_iter_peek_name(&iterator) else { return nil }
            let value = json_object_iter_peek_value(&iterator)
            if strcmp(key, "method") == 0 {
                guard let value, json_object_get_type(value) == json_type_string else { return nil }
                method = methodName(value)
            } else if strcmp(key, "parameters") == 0 {
                switch json_object_get_type(value) {
                case json_type_null: parameters = nil
                case json_type_object:
                    guard Self.isReadable(value) else { return nil }
                    parameters = value
                default: return nil
                }
            } else if strcmp(key, "more") == 0 {
                guard let flag = Self.flag(value) else { return nil }
                more = flag
            } else if strcmp(key, "oneway") == 0 {
                guard let flag = Self.flag(value) else { return nil }
                oneway = flag
            } else if strcmp(key, "upgrade") == 0 {
                guard let flag = Self.flag(value) else { return nil }
                upgrade = flag
            } else if strchr(key, Int32(UInt8(ascii: "."))) == nil || !Self.isReadable(value) {
                // A key the specification does not allow, or a vendor key (dotted) whose value the general reading
                // refuses: json-c takes `NaN`, `Infinity` and `1e400`, which have no JSON form.
                return nil
            }
            json_object_iter_next(&iterator)
        }
        guard let method, (more ? 1 : 0) + (oneway ? 1 : 0) + (upgrade ? 1 : 0) <= 1 else { return nil }
        // An empty object is kept as no parameters: nothing to read in it, nor to hold.
        guard let parameters, json_object_object_length(parameters) > 0 else {
            return VarlinkCall(method: method, parameters: JSONObject(), more: more, oneway: oneway, upgrade: upgrade)
        }
        return VarlinkCall(
            method: method,
            parameterTree: VarlinkParameterTree(retaining: parameters),
            more: more,
            oneway: oneway,
            upgrade: upgrade
        )
    }

    /// The text of the string `object`, the method's name: ``lastMethod`` when it is the same.
    private func methodName(_ object: OpaquePointer) -> String {
        let length = Int(json_object_get_string_len(object))
        guard length > 0, let start = json_object_get_string(object) else { return "" }
        let isLast =
            lastMethod.utf8.withContiguousStorageIfAvailable { known in
                known.count == length && memcmp(known.baseAddress!, start, length) == 0
            } ?? false
        if isLast { return lastMethod }
        lastMethod = Self.string(object)
        return lastMethod
    }

    /// A flag's value: `null` is `false`; `nil` when it is not a boolean.
    private static func flag(_ value: OpaquePointer?) -> Bool? {
        switch json_object_get_type(value) {
        case json_type_null: return false
        case json_type_boolean: return json_object_get_boolean(value) != 0
        default: return nil
        }
    }

    // MARK: - The parameters

    /// Whether the general reading reads `object` (the parameters, or a vendor key's value, which the call does not
    /// keep) as this reader does, walked without making a value of it: no number json-c made infinite, no integer it
    /// read as `Int64.min` or `UInt64.max` (it reads any integer beyond either as that limit: the general reading
    /// looks at the text), no member without a name. The one place these rules are: ``value(_:)`` and
    /// ``members(_:)`` make values of what passed.
    static func isReadable(_ object: OpaquePointer?) -> Bool {
        guard let object else { return true }
        switch json_object_get_type(object) {
        case json_type_int:
            if json_object_get_int64(object) == Int64.max { return json_object_get_uint64(object) != UInt64.max }
            return json_object_get_int64(object) != Int64.min
        case json_type_double:
            return json_object_get_double(object).isFinite
        case json_type_array:
            for index in 0..<json_object_array_length(object)
            where !isReadable(json_object_array_get_idx(object, index)) {
                return false
            }
            return true
        case json_type_object:
            var iterator = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            while json_object_iter_equal(&iterator, &end) == 0 {
                guard json_object_iter_peek_name(&iterator) != nil,
                    isReadable(json_object_iter_peek_value(&iterator))
                else { return false }
                json_object_iter_next(&iterator)
            }
            return true
        case json_type_null, json_type_boolean, json_type_string:
            return true
        default:
            return false
        }
    }

    /// The value `object` holds, as ``JSONParser`` makes it: a value ``isReadable(_:)`` passed, the one place that
    /// says which values this reader leaves to the general reading (the parameters are checked before the call keeps
    /// them, and made into values only afterwards, if a handler asks).
    private static func value(_ object: OpaquePointer?) -> JSONValue {
        guard let object else { return .null }
        switch json_object_get_type(object) {
        case json_type_null:
            return .null
        case json_type_boolean:
            return .bool(json_object_get_boolean(object) != 0)
        case json_type_int:
            // An integer above `Int64.max` is a `Double`, as the general reading makes it.
            let signed = json_object_get_int64(object)
            if signed == Int64.max, json_object_get_uint64(object) > UInt64(Int64.max) {
                return .double(Double(json_object_get_uint64(object)))
            }
            return .int(signed)
        case json_type_double:
            return .double(json_object_get_double(object))
        case json_type_string:
            return .string(string(object))
        case json_type_array:
            let count = json_object_array_length(object)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                elements.append(value(json_object_array_get_idx(object, index)))
            }
            return .array(elements)
        case json_type_object:
            return .object(members(object))
        default:
            preconditionFailure("a json-c value of a type isReadable(_:) refuses")
        }
    }

    /// The members of the json-c object `object`, a value ``isReadable(_:)`` passed, in json-c's order (the order of
    /// the text).
    static func members(_ object: OpaquePointer) -> JSONObject {
        var members = JSONObject(minimumCapacity: Int(json_object_object_length(object)))
        var iterator = json_object_iter_begin(object)
        var end = json_object_iter_end(object)
        while json_object_iter_equal(&iterator, &end) == 0 {
            guard let name = json_object_iter_peek_name(&iterator) else {
                preconditionFailure("a json-c member without a name, which isReadable(_:) refuses")
            }
            // json-c keeps one member per key, the text's last, so the member is always new: `updateValue` appends
            // it, where the subscript's setter took it as an optional, made from the value by another copy.
            members.updateValue(
                value(json_object_iter_peek_value(&iterator)),
                forKey: string(UnsafeRawPointer(name), length: strlen(name))
            )
            json_object_iter_next(&iterator)
        }
        return members
    }

    /// The text of a json-c string, ASCII (the message was).
    static func string(_ object: OpaquePointer) -> String {
        let length = Int(json_object_get_string_len(object))
        guard let start = json_object_get_string(object) else { return "" }
        return string(UnsafeRawPointer(start), length: length)
    }

    /// The `length` bytes at `start`, ASCII (the message was), as a `String`.
    ///
    /// Copied into a string's own storage, not decoded: `String(decoding:as:)` checks the bytes' UTF-8 again before
    /// it copies them, where a string of up to 15 bytes (most keys and values of a call) is copied first and asks
    /// only whether its two words hold a byte above 0x7F: the 7 strings of a steady `Send` cost 734 instructions
    /// instead of 1,185 (callgrind). A longer string is checked as `String(decoding:as:)` checks it.
    static func string(_ start: UnsafeRawPointer, length: Int) -> String {
        guard length > 0 else { return "" }
        return String(unsafeUninitializedCapacity: length) { storage in
            storage.baseAddress!.initialize(from: start.assumingMemoryBound(to: UInt8.self), count: length)
            return length
        }
    }

    // MARK: - The text

    /// The largest message read here, as ``JSONParser`` keeps a tokenizer for: json-c's buffer for strings and
    /// numbers grows to the longest one read and never shrinks.
    private static var largestMessage: Int { 64 * 1024 }

    /// Whether every byte of `text` is below 0x80 and none is a backslash or a single quote: json-c then needs no
    /// UTF-8 check, reads no escape (none can make a key that holds `\u0000`), and reads no key in single quotes
    /// (which strict mode takes, and the general reading refuses).
    private static func isPlainASCII(_ text: UnsafeRawBufferPointer) -> Bool {
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        var seen: UInt64 = 0
        while offset + 8 <= text.count {
            seen |= text.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < text.count {
            seen |= UInt64(text[offset])
            offset += 1
        }
        guard seen & highBits == 0, let base = text.baseAddress else { return false }
        return memchr(base, Int32(UInt8(ascii: "\\")), text.count) == nil
            && memchr(base, Int32(UInt8(ascii: "'")), text.count) == nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    // MARK: - The tokener

    /// This thread's tokener for the default depth, made at its first call and kept: making one allocates json-c's
    /// parse stack. A tokener for another depth is not kept (`nil`: the general reading reads those calls).
    private static func tokener(maxDepth: Int) -> UnsafeMutablePointer<json_tokener>? {
        guard maxDepth == JSONParser.defaultMaxDepth else { return nil }
        if let kept = pthread_getspecific(tokenerKey) {
            return kept.assumingMemoryBound(to: json_tokener.self)
        }
        guard let tokener = json_tokener_new_ex(Int32(maxDepth)) else { return nil }
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT)
        pthread_setspecific(tokenerKey, UnsafeMutableRawPointer(tokener))
        return tokener
    }

    /// The thread-specific slot of ``tokener(maxDepth:)``; a thread's tokener is freed when the thread ends.
    private static let tokenerKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { slot in
            if let slot { json_tokener_free(slot.assumingMemoryBound(to: json_tokener.self)) }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()
}
