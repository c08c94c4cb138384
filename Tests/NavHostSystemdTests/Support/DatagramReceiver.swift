import CSystemd
import Foundation
import IntegrationHarness

/// A bound `AF_UNIX` datagram socket that a test reads, playing the service manager (`NOTIFY_SOCKET`) or journald.
///
/// `SO_PASSCRED` is on, so every datagram says which process sent it; `SO_TIMESTAMPNS` too, so it says when it
/// arrived, however late the test reads it. Descriptors passed with `SCM_RIGHTS` are received too (and owned by the
/// caller).
final class DatagramReceiver: Sendable {
    /// One received datagram.
    struct Datagram: Sendable {
        var bytes: [UInt8]
        var senderPID: Int32?
        var fileDescriptors: [Int32]
        /// When the kernel queued it, since the epoch (`SCM_TIMESTAMPNS`).
        var arrival: Duration?

        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    let path: String
    private let fileDescriptor: Int32

    /// Binds a datagram socket at `path`.
    init(path: String) throws {
        self.path = path
        fileDescriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fileDescriptor >= 0 else { throw POSIXError.current }
        var on: Int32 = 1
        setsockopt(fileDescriptor, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fileDescriptor, SOL_SOCKET, SO_TIMESTAMPNS, &on, socklen_t(MemoryLayout<Int32>.size))
        var bufferSize: Int32 = 8 * 1024 * 1024
        setsockopt(fileDescriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fileDescriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = POSIXError.current
            close(fileDescriptor)
            throw error
        }
    }

    deinit {
        close(fileDescriptor)
    }

    /// The next datagram, or `nil` when none arrives within `timeout`.
    ///
    /// The time-out only bounds a test that is failing (or, for ``expectSilence``, measures silence); a test that
    /// passes never waits for it.
    func receive(timeout: Duration) async throws -> Datagram? {
        let fileDescriptor = self.fileDescriptor
        return try await offThePool { try Self.receive(from: fileDescriptor, timeout: timeout) }
    }

    private static func receive(from fileDescriptor: Int32, timeout: Duration) throws -> Datagram? {
        var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        var ready: Int32
        repeat { ready = poll(&poller, 1, milliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return nil }

        var available: Int32 = 0
        _ = ioctl(fileDescriptor, UInt(FIONREAD), &available)
        guard
            let received = ReceivedDatagram.receive(
                from: fileDescriptor,
                capacity: Int(available),
                flags: Int32(MSG_CMSG_CLOEXEC)
            )
        else { throw POSIXError.current }
        guard received.flags & Int32(MSG_TRUNC) == 0, received.flags & Int32(MSG_CTRUNC) == 0 else {
            throw POSIXError(.EMSGSIZE)
        }
        var datagram = Datagram(bytes: received.payload, senderPID: nil, fileDescriptors: [], arrival: received.arrival)
        // SCM_CREDENTIALS (pid, uid, gid) and SCM_RIGHTS.
        for message in received.controlMessages where message.level == SOL_SOCKET {
            if message.type == Int32(NAVHOST_SCM_CREDENTIALS) {
                datagram.senderPID = message.load(as: Int32.self)
            } else if message.type == Int32(SCM_RIGHTS) {
                for index in 0..<(message.data.count / 4) {
                    datagram.fileDescriptors.append(
                        message.data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * 4, as: Int32.self) }
                    )
                }
            }
        }
        return datagram
    }
}

extension POSIXError {
    /// The error for the current `errno`.
    static var current: POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
