/// A journal entry: its fields in order, and their encoding in journald's native protocol.
///
/// The native protocol (systemd's `JOURNAL_NATIVE_PROTOCOL`) writes each field as `NAME=value\n`. A value that holds
/// a newline cannot be written that way; it goes in the binary form instead: `NAME\n`, the value's length as a
/// little-endian 64-bit integer, the value, `\n`.
public struct JournalEntry: Sendable, Hashable {
    // MARK: - Public Properties

    /// The fields, in the order they are written. A name may repeat; journald keeps every value.
    public var fields: [JournalField]

    // MARK: - Initialization

    /// Creates an entry.
    ///
    /// - Parameter fields: The fields, in the order they are written.
    public init(fields: [JournalField]) {
        self.fields = fields
    }

    // MARK: - Public Functions

    /// The entry in the native protocol: the payload of one datagram to journald's socket.
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.count + 10 })
        for field in fields {
            bytes.append(contentsOf: field.name.utf8)
            if field.value.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(field.value.count).littleEndian) { bytes.append(contentsOf: $0) }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes.append(contentsOf: field.value)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
