import CSystemd
import Glibc

/// The datagram socket that carries entries to journald in its native protocol.
///
/// An entry that fits goes as one datagram. One that does not (`EMSGSIZE`: larger than the socket's send buffer,
/// which this type raises towards 8 MiB like libsystemd does, within `net.core.wmem_max`) goes the way journald
/// allows for large entries: written to a memfd, sealed against any change, and passed as the only content of an
/// otherwise empty datagram. Entries are never truncated.
///
/// The socket is not connected: each entry is addressed to ``path``, so a journald that restarts is found again.
/// Sending blocks while journald's queue is full, as libsystemd does.
public final class JournalSocket: Sendable {
    // MARK: - Private Properties

    private let fileDescriptor: Int32
    private let address: UnixSocketAddress
    private let maximumDatagramSize: Int?

    // MARK: - Public Properties

    /// Where journald listens for native-protocol datagrams on a systemd host.
    public static let defaultPath = "/run/systemd/journal/socket"

    /// The socket path entries are sent to.
    public let path: String

    // MARK: - Initialization

    /// Opens a datagram socket for the journal at `path`. Nothing is sent and `path` need not exist yet.
    ///
    /// - Parameters:
    ///   - path: journald's socket; tests pass a socket of their own.
    ///   - maximumDatagramSize: Entries larger than this go through a memfd without trying a datagram first.
    ///     `nil` (the default) tries a datagram and lets the kernel say when it is too large.
    /// - Throws: ``SystemdError`` with ``SystemdError/Code/journalSocketFailed`` when the path is too long for a
    ///   socket address or the socket cannot be created.
    public init(path: String = JournalSocket.defaultPath, maximumDatagramSize: Int? = nil) throws(SystemdError) {
        guard let address = UnixSocketAddress(path: path) else {
            throw SystemdError(code: .journalSocketFailed, message: "\(path.debugDescription) is not a socket path")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw SystemdError(
                code: .journalSocketFailed,
                message: "could not create a datagram socket for the journal",
                systemErrorNumber: errno
            )
        }
        var bufferSize: Int32 = 8 * 1024 * 1024
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        self.fileDescriptor = descriptor
        self.address = address
        self.path = path
        self.maximumDatagramSize = maximumDatagramSize
    }

    deinit {
        close(fileDescriptor)
    }

    // MARK: - Public Functions

    /// Sends `entry` to journald.
    ///
    /// - Parameter entry: The entry.
    /// - Returns: How the entry travelled.
    /// - Throws: ``SystemdError`` with ``SystemdError/Code/journalSendFailed`` when nobody listens at ``path`` or the
    ///   memfd could not be made.
    @discardableResult
    public func send(_ entry: JournalEntry) throws(SystemdError) -> Delivery {
        let payload = entry.serialized()
        if maximumDatagramSize.map({ payload.count <= $0 }) ?? true {
            let result = sendDatagram(payload)
            if result == 0 { return .datagram }
            guard result == EMSGSIZE || result == ENOBUFS else {
                throw SystemdError(
                    code: .journalSendFailed,
                    message: "could not send a journal entry to \(path)",
                    systemErrorNumber: result
                )
            }
        }
        try sendThroughMemoryFile(payload)
        return .sealedMemoryFile
    }
}

// MARK: - Delivery

extension JournalSocket {
    /// How an entry reached journald's socket.
    public struct Delivery: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case datagram
            case sealedMemoryFile
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// As the payload of one datagram.
        public static let datagram = Delivery(.datagram)
        /// As a sealed memfd passed with `SCM_RIGHTS` in an empty datagram, for entries too large for a datagram.
        public static let sealedMemoryFile = Delivery(.sealedMemoryFile)

        /// The delivery's name, like `sealedMemoryFile`.
        public var description: String {
            switch base {
            case .datagram: return "datagram"
            case .sealedMemoryFile: return "sealedMemoryFile"
            }
        }
    }
}

// MARK: - Private Functions

extension JournalSocket {
    /// Sends `payload` as one datagram; returns 0 or the `errno` of the failure.
    private func sendDatagram(_ payload: [UInt8]) -> Int32 {
        while true {
            let sent = payload.withUnsafeBytes { buffer in
                address.withSocketAddress { socketAddress, length in
                    sendto(fileDescriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
            if sent >= 0 { return 0 }
            if errno != EINTR { return errno }
        }
    }

    /// Writes `payload` to a sealed memfd and passes the memfd to journald.
    private func sendThroughMemoryFile(_ payload: [UInt8]) throws(SystemdError) {
        let memoryFile = navhost_memfd_create("navhost-journal", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        guard memoryFile >= 0 else {
            throw SystemdError(
                code: .journalSendFailed,
                message: "could not create a memfd for a large journal entry",
                systemErrorNumber: errno
            )
        }
        defer { close(memoryFile) }
        try writeAll(payload, to: memoryFile)
        let seals = NAVHOST_F_SEAL_SHRINK | NAVHOST_F_SEAL_GROW | NAVHOST_F_SEAL_WRITE | NAVHOST_F_SEAL_SEAL
        guard fcntl(memoryFile, Int32(NAVHOST_F_ADD_SEALS), Int32(seals)) == 0 else {
            throw SystemdError(
                code: .journalSendFailed,
                message: "could not seal the memfd of a large journal entry",
                systemErrorNumber: errno
            )
        }
        let result = sendDescriptor(memoryFile)
        guard result == 0 else {
            throw SystemdError(
                code: .journalSendFailed,
                message: "could not pass a large journal entry's memfd to \(path)",
                systemErrorNumber: result
            )
        }
    }

    private func writeAll(_ payload: [UInt8], to descriptor: Int32) throws(SystemdError) {
        var offset = 0
        while offset < payload.count {
            let written = payload.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemdError(
                    code: .journalSendFailed,
                    message: "could not write a large journal entry to its memfd",
                    systemErrorNumber: errno
                )
            }
            offset += written
        }
    }

    /// Sends an empty datagram carrying `descriptor` as `SCM_RIGHTS`; returns 0 or the `errno` of the failure.
    private func sendDescriptor(_ descriptor: Int32) -> Int32 {
        let control = ControlMessageBuffer(rights: [descriptor])
        while true {
            let sent = control.withControlBytes { controlPointer, controlLength in
                address.withSocketAddress { socketAddress, addressLength in
                    var header = msghdr()
                    header.msg_name = UnsafeMutableRawPointer(mutating: socketAddress)
                    header.msg_namelen = addressLength
                    header.msg_control = controlPointer
                    header.msg_controllen = controlLength
                    return sendmsg(fileDescriptor, &header, Int32(MSG_NOSIGNAL))
                }
            }
            if sent >= 0 { return 0 }
            if errno != EINTR { return errno }
        }
    }
}
