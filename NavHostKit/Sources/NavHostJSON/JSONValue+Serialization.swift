internal import CJSONC

extension JSONValue {
    /// Serializes the value compactly with json-c: no spaces, `/` not escaped, non-ASCII as UTF-8.
    ///
    /// - Throws: ``JSONError/Code/nonFiniteNumber`` when a `Double` is NaN or infinite.
    public func serializedBytes() throws(JSONError) -> [UInt8] {
        try withSerializedBytes { Array($0) }
    }

    /// Appends the value's compact JSON text to `bytes`: the bytes ``serializedBytes()`` gives, written directly
    /// instead of through a json-c object tree, which costs more to build and free than the text costs to write.
    ///
    /// One difference: ``serializedBytes()`` refuses an object key holding U+0000 (json-c keeps keys as C strings);
    /// this writes the whole key, the NUL escaped as `\u0000`.
    ///
    /// - Parameter bytes: The bytes to append to.
    /// - Throws: ``JSONError/Code/nonFiniteNumber`` for a NaN or infinite `Double`; `bytes` then ends in part of the
    ///   text.
    public func appendSerializedBytes(to bytes: inout [UInt8]) throws(JSONError) {
        // Swapped in and out, so the array is never shared and grows in place.
        var writer = JSONTextWriter(bytes: [])
        swap(&writer.bytes, &bytes)
        defer { swap(&writer.bytes, &bytes) }
        try writer.write(self)
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
