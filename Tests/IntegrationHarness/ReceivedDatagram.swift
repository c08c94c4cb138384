import Glibc

/// One datagram read with `recvmsg`: its payload, the flags the kernel set, and its control messages.
package struct ReceivedDatagram {
    /// One control message: its level, type and data.
    package struct ControlMessage {
        package var level: Int32
        package var type: Int32
        package var data: [UInt8]

        /// The data as a `T` (a `timespec`, say).
        package func load<T>(as type: T.Type) -> T? {
            guard data.count >= MemoryLayout<T>.size else { return nil }
            return data.withUnsafeBytes { $0.loadUnaligned(as: T.self) }
        }
    }

    package var payload: [UInt8]
    /// `recvmsg`'s `msg_flags`: `MSG_TRUNC`, `MSG_CTRUNC`.
    package var flags: Int32
    package var controlMessages: [ControlMessage]

    /// Reads the next datagram of `descriptor`, at most `capacity` bytes of it; `nil` when `recvmsg` fails (`errno`
    /// says why).
    package static func receive(from descriptor: Int32, capacity: Int, flags: Int32 = 0) -> ReceivedDatagram? {
        var payload = [UInt8](repeating: 0, count: max(capacity, 1))
        var control = [UInt8](repeating: 0, count: 256)
        let (count, controlLength, messageFlags) = payload.withUnsafeMutableBytes { payloadBytes in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: payloadBytes.baseAddress, iov_len: payloadBytes.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = controlBytes.count
                    let count = recvmsg(descriptor, &header, flags)
                    return (count, header.msg_controllen, header.msg_flags)
                }
            }
        }
        guard count >= 0 else { return nil }
        return ReceivedDatagram(
            payload: Array(payload.prefix(count)),
            flags: messageFlags,
            controlMessages: Self.controlMessages(in: control, length: controlLength)
        )
    }

    /// The arrival stamp (`SCM_TIMESTAMPNS`, `CLOCK_REALTIME`), when the socket has `SO_TIMESTAMPNS` on.
    package var arrival: Duration? {
        let stamp = controlMessages.first { $0.level == SOL_SOCKET && $0.type == Int32(SCM_TIMESTAMPNS) }
        return stamp?.load(as: timespec.self).map { .seconds($0.tv_sec) + .nanoseconds($0.tv_nsec) }
    }

    private static func controlMessages(in control: [UInt8], length: Int) -> [ControlMessage] {
        let headerSize = MemoryLayout<cmsghdr>.size
        let align = { (value: Int) in (value + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1) }
        var messages: [ControlMessage] = []
        var offset = 0
        control.withUnsafeBytes { buffer in
            while offset + headerSize <= length {
                let header = buffer.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
                guard header.cmsg_len > 0 else { break }
                let start = offset + align(headerSize)
                let end = min(offset + Int(header.cmsg_len), length)
                messages.append(
                    ControlMessage(
                        level: header.cmsg_level,
                        type: header.cmsg_type,
                        data: start < end ? Array(buffer[start..<end]) : []
                    )
                )
                offset += align(Int(header.cmsg_len))
            }
        }
        return messages
    }
}
