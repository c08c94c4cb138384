import Glibc
import NavHostSocketPath

/// A filesystem `AF_UNIX` address, ready for `connect(2)` or `sendto(2)`.
struct UnixSocketAddress {
    // MARK: - Private Properties

    private var storage = sockaddr_un()

    // MARK: - Initialization

    /// The address of `path`, or `nil` when the path does not fit in `sun_path` (``SocketPathLength/maximum`` bytes
    /// and a NUL).
    init?(path: String) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= SocketPathLength.maximum, !bytes.contains(0) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
    }

    // MARK: - Functions

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSocketAddress<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) rethrows -> Result {
        var copy = storage
        return try withUnsafePointer(to: &copy) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                try body(address, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
