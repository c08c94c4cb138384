import CSystemd
import Foundation

/// Reads journald's native protocol back into fields, the way journald does, to check what a handler sent.
enum NativeProtocolParser {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The fields of one entry, in order; values as text.
    static func fields(of bytes: [UInt8]) throws -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        var index = 0
        while index < bytes.count {
            guard let end = bytes[index...].firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\n") })
            else { throw Malformed(description: "field name without end at byte \(index)") }
            let name = String(decoding: bytes[index..<end], as: UTF8.self)
            if bytes[end] == UInt8(ascii: "=") {
                guard let newline = bytes[(end + 1)...].firstIndex(of: UInt8(ascii: "\n")) else {
                    throw Malformed(description: "\(name): text value without newline")
                }
                fields.append((name, String(decoding: bytes[(end + 1)..<newline], as: UTF8.self)))
                index = newline + 1
            } else {
                let lengthStart = end + 1
                guard lengthStart + 8 <= bytes.count else { throw Malformed(description: "\(name): short length") }
                var length: UInt64 = 0
                for (shift, byte) in bytes[lengthStart..<(lengthStart + 8)].enumerated() {
                    length |= UInt64(byte) << (8 * UInt64(shift))
                }
                let valueStart = lengthStart + 8
                let valueEnd = valueStart + Int(length)
                guard valueEnd < bytes.count, bytes[valueEnd] == UInt8(ascii: "\n") else {
                    throw Malformed(description: "\(name): binary value of \(length) bytes not followed by a newline")
                }
                fields.append((name, String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)))
                index = valueEnd + 1
            }
        }
        return fields
    }

    /// The entry a datagram carries: its payload, or the content of the sealed memfd passed with it.
    static func entryBytes(of datagram: DatagramReceiver.Datagram) throws -> (bytes: [UInt8], viaMemoryFile: Bool) {
        guard let descriptor = datagram.fileDescriptors.first else { return (datagram.bytes, false) }
        defer { datagram.fileDescriptors.forEach { close($0) } }
        guard datagram.bytes.isEmpty else { throw Malformed(description: "a memfd datagram must be otherwise empty") }
        let seals = fcntl(descriptor, Int32(NAVHOST_F_GET_SEALS))
        let required = Int32(NAVHOST_F_SEAL_SHRINK | NAVHOST_F_SEAL_GROW | NAVHOST_F_SEAL_WRITE)
        guard seals >= 0, seals & required == required else {
            throw Malformed(description: "journald refuses a memfd without shrink, grow and write seals (\(seals))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw POSIXError.current }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
            }
            guard count > 0 else { throw POSIXError.current }
            offset += count
        }
        return (bytes, true)
    }
}

extension Array where Element == (name: String, value: String) {
    /// The first value of field `name`.
    subscript(field name: String) -> String? {
        first { $0.name == name }?.value
    }
}
