internal import CJSONC

extension JSONValue {
    /// Serializes the value compactly with json-c: no spaces, `/` not escaped, non-ASCII as UTF-8.
    ///
    /// - Throws: ``JSONError/Code/nonFiniteNumber`` when a `Double` is NaN or infinite.
    public func serializedBytes() throws(JSONError) -> [UInt8] {
        try withSerializedBytes { Array($0) }
    }

    /// Serializes the value compactly with json-c.
    public func serializedString() throws(JSONError) -> String {
        try withSerializedBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Serializes the value and hands the bytes, valid only during the call, to `body`.
    ///
    /// This avoids a copy when the bytes go straight into a network buffer.
    public func withSerializedBytes<Result>(
        _ body: (UnsafeRawBufferPointer) -> Result
    ) throws(JSONError) -> Result {
        let object = try makeJSONCObject()
        defer { json_object_put(object) }
        var length = 0
        let flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE
        guard let text = json_object_to_json_string_length(object, flags, &length) else {
            return body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeRawBufferPointer(start: text, count: length))
    }
}
