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
/// Use it through NIO's `ByteToMessageHandler`:
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(VarlinkFrameDecoder(maxMessageSize: 1 << 20)))
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
        let readable = buffer.readableBytesView
        let searchStart = readable.index(readable.startIndex, offsetBy: scannedBytes)
        guard let terminator = readable[searchStart...].firstIndex(of: 0) else {
            scannedBytes = readable.count
            if scannedBytes > maxMessageSize { throw Self.tooLarge(limit: maxMessageSize) }
            return .needMoreData
        }
        let length = readable.distance(from: readable.startIndex, to: terminator)
        if length > maxMessageSize { throw Self.tooLarge(limit: maxMessageSize) }
        let message = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        scannedBytes = 0
        context.fireChannelRead(Self.wrapInboundOut(message))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        if try decode(context: context, buffer: &buffer) == .continue { return .continue }
        let rest = buffer.readableBytesView
        if seenEOF, rest.contains(where: { !Self.isWhitespace($0) }) {
            throw VarlinkProtocolError(
                code: .truncatedMessage,
                message: "the stream ended inside a message (\(rest.count) bytes without a NUL terminator)"
            )
        }
        buffer.moveReaderIndex(forwardBy: rest.count)
        return .needMoreData
    }

    private static func tooLarge(limit: Int) -> VarlinkProtocolError {
        VarlinkProtocolError(code: .messageTooLarge, message: "a message is larger than the limit of \(limit) bytes")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
