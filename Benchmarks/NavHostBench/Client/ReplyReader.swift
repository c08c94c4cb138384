import CNavHostBench

/// Checks replies with json-c, doing per reply what the floor's client does: parse the whole message, look up a
/// member or two, free it.
final class ReplyReader {
    private let tokener: UnsafeMutablePointer<json_tokener>

    init() {
        tokener = json_tokener_new()
    }

    deinit {
        json_tokener_free(tokener)
    }

    /// Parses one message and hands its top-level object to `body`; the object lives only during the call.
    ///
    /// - Throws: When the message is not a JSON object, or is an error reply (unless `allowError`).
    func read<Result>(
        _ message: UnsafeRawBufferPointer,
        allowError: Bool = false,
        _ body: (JSONCView) throws -> Result
    ) throws -> Result {
        json_tokener_reset(tokener)
        let base = message.baseAddress!.assumingMemoryBound(to: CChar.self)
        guard let object = json_tokener_parse_ex(tokener, base, Int32(message.count)),
            json_object_get_type(object) == json_type_object
        else {
            throw BenchError("a reply is not a JSON object: \(String(decoding: message, as: UTF8.self))")
        }
        defer { json_object_put(object) }
        let view = JSONCView(object: object)
        if !allowError, let error = view["error"]?.string {
            throw BenchError("the daemon answered \(error): \(String(decoding: message, as: UTF8.self))")
        }
        return try body(view)
    }

    /// Parses a reply that must carry `parameters.<member>`, and returns that member's integer value.
    func integer(_ member: String, in message: UnsafeRawBufferPointer) throws -> Int64 {
        try read(message) { reply in
            guard let value = reply["parameters"]?[member]?.integer else {
                throw BenchError("a reply has no parameters.\(member): \(String(decoding: message, as: UTF8.self))")
            }
            return value
        }
    }
}

/// A borrowed view of a json-c object, valid while its root is alive.
struct JSONCView {
    fileprivate let object: OpaquePointer

    /// The member `key` of an object.
    subscript(key: String) -> JSONCView? {
        var member: OpaquePointer?
        guard json_object_object_get_ex(object, key, &member) != 0, let member else { return nil }
        return JSONCView(object: member)
    }

    /// The value as a string, when it is one.
    var string: String? {
        guard json_object_get_type(object) == json_type_string else { return nil }
        return String(cString: json_object_get_string(object))
    }

    /// The value as an integer, when it is one.
    var integer: Int64? {
        guard json_object_get_type(object) == json_type_int else { return nil }
        return json_object_get_int64(object)
    }

    /// The value as a Boolean, when it is one.
    var boolean: Bool? {
        guard json_object_get_type(object) == json_type_boolean else { return nil }
        return json_object_get_boolean(object) != 0
    }

    /// The elements of an array.
    var elements: [JSONCView] {
        guard json_object_get_type(object) == json_type_array else { return [] }
        return (0..<json_object_array_length(object)).compactMap { index in
            json_object_array_get_idx(object, index).map(JSONCView.init(object:))
        }
    }
}
