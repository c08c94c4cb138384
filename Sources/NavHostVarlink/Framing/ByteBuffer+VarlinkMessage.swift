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
        try writeTerminated { text throws(JSONError) in try message.appendSerializedBytes(to: &text) }
    }

    /// Appends the text `write` makes and a NUL, in one write; nothing when `write` throws.
    private mutating func writeTerminated(
        _ write: (inout [UInt8]) throws(JSONError) -> Void
    ) throws(JSONError) -> Int {
        var text: [UInt8] = []
        text.reserveCapacity(512)
        try write(&text)
        text.append(0)
        return writeBytes(text)
    }
}

extension ByteBuffer {
    /// Appends `reply` with its NUL terminator: the bytes `writeVarlinkMessage(reply.jsonValue)` writes, without
    /// building that object first. Every reply the server sends goes through here.
    ///
    /// - Throws: ``JSONError`` when the parameters have no JSON form (a non-finite number); nothing is written then.
    /// - Returns: The number of bytes written, terminator included.
    @discardableResult
    public mutating func writeVarlinkReply(_ reply: VarlinkReply) throws(JSONError) -> Int {
        try writeTerminated { text throws(JSONError) in try Self.appendReply(reply, to: &text) }
    }

    /// Appends a final reply whose output parameters are `parameters`' text, with its NUL terminator: the bytes
    /// ``writeVarlinkReply(_:)-(VarlinkReply)`` writes for a reply with those parameters as an object.
    ///
    /// - Returns: The number of bytes written, terminator included.
    @discardableResult
    public mutating func writeVarlinkReply(_ parameters: VarlinkSerializedParameters) -> Int {
        let text = parameters.text
        if text.count == 2, text[0] == UInt8(ascii: "{"), text[1] == UInt8(ascii: "}") {
            return writeStaticString("{}\0")
        }
        // One write of the three parts, each copied as it is: every `Send`'s reply is written here, and each write
        // through the buffer's own functions (a uniqueness check, an exclusive access) cost about 280 instructions.
        let head: StaticString = #"{"parameters":"#
        let tail: StaticString = "}\0"
        let count = head.utf8CodeUnitCount + text.count + tail.utf8CodeUnitCount
        // At fixed offsets: a running offset captured by the copies would be checked for exclusive access at each.
        let textStart = head.utf8CodeUnitCount
        let tailStart = textStart + text.count
        return writeWithUnsafeMutableBytes(minimumWritableBytes: count) { buffer in
            head.withUTF8Buffer { buffer.copyMemory(from: UnsafeRawBufferPointer($0)) }
            text.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffer[textStart...]).copyMemory(from: bytes)
            }
            tail.withUTF8Buffer { bytes in
                let end = UnsafeMutableRawBufferPointer(rebasing: buffer[tailStart...])
                end.copyMemory(from: UnsafeRawBufferPointer(bytes))
            }
            return count
        }
    }

    /// The text of `reply`, as `reply.jsonValue` serializes.
    private static func appendReply(_ reply: VarlinkReply, to text: inout [UInt8]) throws(JSONError) {
        text.append(UInt8(ascii: "{"))
        // The members in the order `VarlinkReply.jsonValue` gives them.
        if let error = reply.error {
            text.append(contentsOf: #""error":"#.utf8)
            try JSONValue.string(error).appendSerializedBytes(to: &text)
        }
        if !reply.parameters.isEmpty {
            if reply.error != nil { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: #""parameters":"#.utf8)
            try JSONValue.object(reply.parameters).appendSerializedBytes(to: &text)
        }
        if reply.continues {
            if reply.error != nil || !reply.parameters.isEmpty { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: #""continues":true"#.utf8)
        }
        text.append(UInt8(ascii: "}"))
    }
}

extension JSONParser {
    /// Parses one framed Varlink message (its bytes without the NUL terminator).
    ///
    /// - Throws: ``VarlinkProtocolError`` with code ``VarlinkProtocolError/Code/invalidJSON`` that names the JSON
    ///   layer's error and byte offset.
    func parseVarlinkMessage(_ bytes: ByteBuffer) throws(VarlinkProtocolError) -> JSONValue {
        // Thrown through `withUnsafeReadableBytes` (untyped): a `Result` made for every message, to keep the error's
        // type, cost its copy and destruction (the SDK's `JSONValue` has no layout this module knows).
        do {
            return try bytes.withUnsafeReadableBytes { raw in try parse(raw) }
        } catch {
            throw VarlinkProtocolError(code: .invalidJSON, message: "the message is not valid JSON: \(error)")
        }
    }
}
