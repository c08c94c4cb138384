internal import Glibc
public import NIOCore

/// Splits a Varlink byte stream into messages: each message ends with one NUL byte.
///
/// The decoder emits each message's bytes without the NUL, for the JSON layer to parse. It never looks inside a
/// message, so a message split across many reads and many messages in one read come out the same.
///
/// The size limit is enforced before anything is parsed: once more than ``maxMessageSize`` bytes have arrived
/// without a NUL, decoding fails with ``VarlinkProtocolError/Code/messageTooLarge`` at once, without waiting for the
/// rest. When the stream ends in the middle of a message, decoding fails with
/// ``VarlinkProtocolError/Code/truncatedMessage``; white space after the last NUL is ignored.
///
/// Use it through ``VarlinkFrameHandler``, as the server does, or through NIO's `ByteToMessageHandler`:
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(VarlinkFrameHandler(maxMessageSize: 1 << 20))
/// ```
public struct VarlinkFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// The limit unless a caller says otherwise: 1 MiB.
    public static let defaultMaxMessageSize = 1 << 20

    /// The largest message accepted, in bytes, not counting its NUL terminator.
    public let maxMessageSize: Int

    /// How many bytes after the reader index are known to hold no NUL, so a drip-fed message is scanned once.
    private var scannedBytes = 0

    /// Creates a decoder.
    ///
    /// - Parameter maxMessageSize: The largest message accepted, in bytes, not counting its NUL terminator.
    public init(maxMessageSize: Int = VarlinkFrameDecoder.defaultMaxMessageSize) {
        precondition(maxMessageSize > 0, "maxMessageSize must be positive")
        self.maxMessageSize = maxMessageSize
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let message = try nextMessage(in: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(message))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        if try decode(context: context, buffer: &buffer) == .continue { return .continue }
        if seenEOF { try checkEnd(of: buffer) }
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return .needMoreData
    }

    /// Takes the next message off the front of `buffer`, without its terminator; `nil` when `buffer` ends inside
    /// one (then `buffer` must keep those bytes, and get the next ones appended, for the next call).
    ///
    /// - Throws: ``VarlinkProtocolError`` `messageTooLarge` once the message is over the limit.
    /// - Important: ``VarlinkFrameHandler`` calls it on a property that skips the runtime's exclusivity check: it
    ///   must call no code outside the decoder and the buffer (no handler, no closure).
    mutating func nextMessage(in buffer: inout ByteBuffer) throws(VarlinkProtocolError) -> ByteBuffer? {
        guard let length = firstNUL(in: buffer) else {
            scannedBytes = buffer.readableBytes
            if scannedBytes > maxMessageSize { throw Self.tooLarge(limit: maxMessageSize) }
            return nil
        }
        if length > maxMessageSize { throw Self.tooLarge(limit: maxMessageSize) }
        let message = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        scannedBytes = 0
        return message
    }

    /// The offset of the first NUL among `buffer`'s readable bytes, past the ones already scanned; `nil` when there is
    /// none. Found with `memchr`, which reads many bytes at a time: `firstIndex(of:)` over the bytes' view cost about
    /// six instructions per byte of every message.
    private func firstNUL(in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard let base = bytes.baseAddress, bytes.count > scannedBytes,
                let found = memchr(base + scannedBytes, 0, bytes.count - scannedBytes)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Checks what is left once the stream has ended: white space only.
    ///
    /// - Throws: ``VarlinkProtocolError`` `truncatedMessage` when `rest` holds the start of a message.
    func checkEnd(of rest: ByteBuffer) throws(VarlinkProtocolError) {
        let bytes = rest.readableBytesView
        guard bytes.contains(where: { !Self.isWhitespace($0) }) else { return }
        throw VarlinkProtocolError(
            code: .truncatedMessage,
            message: "the stream ended inside a message (\(bytes.count) bytes without a NUL terminator)"
        )
    }

    private static func tooLarge(limit: Int) -> VarlinkProtocolError {
        VarlinkProtocolError(code: .messageTooLarge, message: "a message is larger than the limit of \(limit) bytes")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
