import Glibc

/// A datagram socket standing in for systemd's notification socket: the daemon's `sd_notify` messages arrive here,
/// each stamped by the kernel with the time it arrived (`SO_TIMESTAMPNS`), however late the test reads it.
package final class NotifySocket: @unchecked Sendable {
    /// One message and when it arrived.
    package struct Message: Sendable {
        package var text: String
        /// `CLOCK_REALTIME` when the kernel queued it (see ``NotifySocket/now``).
        package var arrival: Duration
    }

    /// The socket's path, for `NOTIFY_SOCKET`.
    package let path: String
    private let fd: Int32

    /// Binds a fresh datagram socket at `path`.
    package init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TimedOut(what: "a notify socket (socket() failed)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw TimedOut(what: "a notify socket at \(path) (bind failed)") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The clock arrivals are stamped with, now.
    package static var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next datagram, or `nil` when none arrives within `milliseconds`.
    package func receive(milliseconds: Int32) -> String? {
        receiveMessage(milliseconds: milliseconds)?.text
    }

    /// The next datagram with its arrival, or `nil` when none arrives within `milliseconds`. With `peeking`, it
    /// stays queued: the next receive returns it again.
    package func receiveMessage(milliseconds: Int32, peeking: Bool = false) -> Message? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var control = [UInt8](repeating: 0, count: 256)
        let (count, controlLength) = buffer.withUnsafeMutableBytes { payload in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: payload.baseAddress, iov_len: payload.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = controlBytes.count
                    let count = recvmsg(fd, &header, peeking ? Int32(MSG_PEEK) : 0)
                    return (count, header.msg_controllen)
                }
            }
        }
        guard count >= 0 else { return nil }
        return Message(
            text: String(decoding: buffer[..<count], as: UTF8.self),
            arrival: Self.arrival(in: control, length: controlLength) ?? Self.now
        )
    }

    /// The `SCM_TIMESTAMPNS` among the control messages.
    private static func arrival(in control: [UInt8], length: Int) -> Duration? {
        let headerSize = MemoryLayout<cmsghdr>.size
        let align = { (value: Int) in (value + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1) }
        var offset = 0
        return control.withUnsafeBytes { buffer -> Duration? in
            while offset + headerSize <= length {
                let header = buffer.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
                if header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_TIMESTAMPNS) {
                    let time = buffer.loadUnaligned(fromByteOffset: offset + align(headerSize), as: timespec.self)
                    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
                }
                guard header.cmsg_len > 0 else { return nil }
                offset += align(Int(header.cmsg_len))
            }
            return nil
        }
    }
}
