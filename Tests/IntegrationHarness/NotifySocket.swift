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
        guard let datagram = ReceivedDatagram.receive(from: fd, capacity: 4096, flags: peeking ? Int32(MSG_PEEK) : 0)
        else { return nil }
        return Message(text: String(decoding: datagram.payload, as: UTF8.self), arrival: datagram.arrival ?? Self.now)
    }
}
