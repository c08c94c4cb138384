public import NIOCore
public import NavHostJSON

extension ByteBuffer {
    /// Serializes `message` as compact JSON (the bytes `JSONValue.serializedBytes()` gives) and appends it with its
    /// NUL terminator.
    ///
    /// - Throws: ``JSONError`` when the value has no JSON form (a non-finite number); nothing is written then.
    /// - Returns: The number of bytes written, terminator included.
    @discardableResult
    public mutating func writeVarlinkMessage(_ message: JSONValue) throws(JSONError) -> Int {
        var text = JSONTextWriter()
        try text.write(message)
        text.bytes.append(0)
        return writeBytes(text.bytes)
    }
}

extension JSONParser {
    /// Parses one framed Varlink message (its bytes without the NUL terminator).
    ///
    /// - Throws: ``VarlinkProtocolError`` with code ``VarlinkProtocolError/Code/invalidJSON`` that names the JSON
    ///   layer's error and byte offset.
    func parseVarlinkMessage(_ bytes: ByteBuffer) throws(VarlinkProtocolError) -> JSONValue {
        let result = bytes.withUnsafeReadableBytes { raw in Result { () throws(JSONError) in try parse(raw) } }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            throw VarlinkProtocolError(code: .invalidJSON, message: "the message is not valid JSON: \(error)")
        }
    }
}
