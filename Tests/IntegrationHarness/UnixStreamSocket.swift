import Foundation
import Glibc

/// A plain `AF_UNIX` stream socket for tests that need to misbehave: write without ever reading, see how much the
/// server has sent that is still unread, hold hundreds of connections without an event loop each.
///
/// Blocking system calls run on a thread of their own, never on the cooperative pool.
package final class UnixStreamSocket: @unchecked Sendable {
    /// What went wrong, with `errno`'s words.
    package struct Failure: Error, CustomStringConvertible {
        package var operation: String
        package var code: Int32
        package var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    private let fd: Int32
    private var isClosed = false

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        if !isClosed { Glibc.close(fd) }
    }

    /// Connects to `path`, waiting while the server's backlog is full.
    ///
    /// - Parameter receiveBuffer: `SO_RCVBUF` to ask for before connecting, or `nil` for the system's default.
    package static func connect(to path: String, receiveBuffer: Int32? = nil) async throws -> UnixStreamSocket {
        try await offThePool {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
            let connection = UnixStreamSocket(fd: fd)
            if var size = receiveBuffer {
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard result == 0 else { throw Failure(operation: "connect \(path)", code: errno) }
            return connection
        }
    }

    /// Writes all of `bytes`, or as much as the server takes before it closes or `limit` passes.
    ///
    /// - Returns: How many bytes were written, and the error that stopped the write early, if any (`EPIPE` or
    ///   `ECONNRESET` once the server closed).
    @discardableResult
    package func write(_ bytes: [UInt8], within limit: Duration = .seconds(20)) async -> (
        written: Int, error: Failure?
    ) {
        let fd = self.fd
        return await offThePool {
            let deadline = ContinuousClock.now + limit
            var written = 0
            while written < bytes.count {
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard ContinuousClock.now < deadline else {
                    return (written, Failure(operation: "write", code: ETIMEDOUT))
                }
                guard poll(&descriptor, 1, 100) >= 0 else { return (written, Failure(operation: "poll", code: errno)) }
                if descriptor.revents == 0 { continue }
                let count = bytes[written...].withUnsafeBytes { raw in
                    send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    return (written, Failure(operation: "write", code: errno))
                }
                written += count
            }
            return (written, nil)
        }
    }

    /// Writes `text` as UTF-8, as it is (no terminator is added).
    @discardableResult
    package func write(_ text: String) async -> (written: Int, error: Failure?) {
        await write(Array(text.utf8))
    }

    /// How many bytes the server has sent that this socket has not read (`FIONREAD`).
    package var unreadBytes: Int {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return Int(count)
    }

    /// Waits until the server closes the connection, without reading anything.
    package func waitUntilPeerCloses(within limit: Duration = .seconds(20)) async throws {
        let fd = self.fd
        // POLLRDHUP (Linux, from <poll.h> under _GNU_SOURCE, which Glibc's module does not define).
        let peerClosed: Int16 = 0x2000
        try await offThePool {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: fd, events: peerClosed, revents: 0)
                guard poll(&descriptor, 1, 100) >= 0 else { throw Failure(operation: "poll", code: errno) }
                if descriptor.revents & (peerClosed | Int16(POLLHUP) | Int16(POLLERR)) != 0 { return }
            }
            throw TimedOut(what: "the server to close a connection")
        }
    }

    /// Reads everything until the server closes the connection.
    ///
    /// - Returns: The bytes read, and whether the end came as a reset rather than an orderly close (a server that
    ///   closes with unread input resets the connection).
    package func readUntilClosed(within limit: Duration = .seconds(20)) async throws -> (bytes: [UInt8], reset: Bool) {
        let fd = self.fd
        return try await offThePool {
            let deadline = ContinuousClock.now + limit
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) >= 0 else { throw Failure(operation: "poll", code: errno) }
                if descriptor.revents == 0 { continue }
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count == 0 { return (received, false) }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    if errno == ECONNRESET { return (received, true) }
                    throw Failure(operation: "read", code: errno)
                }
                received += buffer[..<count]
            }
            throw TimedOut(what: "the server to close a connection")
        }
    }

    /// Reads `count` NUL-terminated messages (fewer if the server closes first), as text without the NULs.
    package func readMessages(_ count: Int, within limit: Duration = .seconds(20)) async throws -> [String] {
        let fd = self.fd
        return try await offThePool {
            let deadline = ContinuousClock.now + limit
            var messages: [String] = []
            var pending: [UInt8] = []
            var byte: UInt8 = 0
            while messages.count < count {
                guard ContinuousClock.now < deadline else { throw TimedOut(what: "\(count) messages") }
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) >= 0 else { throw Failure(operation: "poll", code: errno) }
                if descriptor.revents == 0 { continue }
                // One byte at a time: nothing after the last wanted message is taken from the socket.
                let read = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
                if read == 0 { return messages }
                if read < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    if errno == ECONNRESET { return messages }
                    throw Failure(operation: "read", code: errno)
                }
                if byte == 0 {
                    messages.append(String(decoding: pending, as: UTF8.self))
                    pending = []
                } else {
                    pending.append(byte)
                }
            }
            return messages
        }
    }

    /// Closes the writing side: the server sees the end of input.
    package func halfClose() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the socket.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

}
