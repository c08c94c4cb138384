import Glibc

/// Helpers for `AF_UNIX` sockets, shared by the notification listener and the client connections.
enum UnixSocket {
    /// Runs `body` with a `sockaddr_un` for `path`.
    static func withAddress<Result>(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) throws -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw BenchError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A new socket of `type`, closed on `exec`, so no child inherits it.
    static func make(type: Int32) throws -> Int32 {
        let fd = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError.system("socket") }
        return fd
    }
}

/// A datagram socket standing in for systemd's notification socket: `navhostd`'s `sd_notify` messages arrive here.
final class NotifyListener {
    /// The path to put in `NOTIFY_SOCKET`.
    let path: String
    private let fd: Int32

    /// Binds a datagram socket at `path`.
    init(path: String) throws {
        self.path = path
        unlink(path)
        let socket = try UnixSocket.make(type: Int32(SOCK_DGRAM.rawValue))
        let bound = try UnixSocket.withAddress(path) { bind(socket, $0, $1) }
        guard bound == 0 else {
            let error = BenchError.system("bind(\(path))")
            close(socket)
            throw error
        }
        fd = socket
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next message and the time it was read, or `nil` when none arrives within `milliseconds`.
    func receive(milliseconds: Int32) -> (text: String, nanoseconds: UInt64)? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) == 1 else { return nil }
        let arrived = MonotonicClock.now()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return (String(decoding: buffer[..<count], as: UTF8.self), arrived)
    }
}
