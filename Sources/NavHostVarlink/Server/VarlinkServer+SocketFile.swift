internal import Glibc
internal import NIOCore

// The socket file a server binds itself: never taken from a server that still listens there, and removed at the end
// only while it is still this server's. Both steps run under the socket path's lock (`SocketPathLock`).

extension VarlinkServer {
    /// Another process listens on the socket path a server was asked to bind: it answered a connection.
    public struct SocketInUse: Error, Sendable, Hashable, CustomStringConvertible {
        /// The socket's path.
        public var path: String

        public var description: String {
            "another server listens on \(path): stop it first, or give this one another socket path"
        }
    }

    /// Another process held the lock of the socket path a server was asked to bind (`<path>.lock`) for all the
    /// time the server waits for it: a server stuck in its own bind or removal of the socket there.
    public struct SocketPathLocked: Error, Sendable, Hashable, CustomStringConvertible {
        /// The socket's path.
        public var path: String
        /// How long the server waited for the lock.
        public var patience: Duration

        /// The lock file, beside the socket.
        public var lockPath: String { path + ".lock" }

        public var description: String {
            "another process held \(lockPath) for \(patience) (a server stuck binding or removing the socket beside "
                + "it): stop it, or give this server another socket path"
        }
    }

    /// Which file a path names: a socket file replaced at the same path is another file (an inode number may be
    /// given again to a new file, its change time hardly).
    struct SocketFileIdentity: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
        var changeSeconds: Int
        var changeNanoseconds: Int

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            changeSeconds = status.st_ctim.tv_sec
            changeNanoseconds = status.st_ctim.tv_nsec
        }
    }

    /// Throws ``SocketInUse`` when a server may be listening on the socket file at `path`, which
    /// ``bind(unixSocketPath:socketMode:cleanupExistingSocketFile:service:configuration:isPrivilegedPeer:logger:eventLoopGroup:)``
    /// would refuse:
    /// for a caller with costly work to do before it binds, so that it is refused before that work, not after. The
    /// bind checks again.
    public static func checkSocketIsFree(at path: String) throws(SocketInUse) {
        if SocketFileIdentity(path: path) != nil, isListening(at: path) { throw SocketInUse(path: path) }
    }

    /// Whether a server may be listening on the socket at `path`: only a path that refuses connections (a socket file
    /// left by a server that is gone, or another kind of file) or names nothing says no. The connection is not waited
    /// for: a server whose backlog is full (a wedged daemon) answers `EAGAIN`, and counts as listening; so does one
    /// this user may not reach.
    static func isListening(at path: String) -> Bool {
        guard let address = try? SocketAddress(unixDomainSocketPath: path) else { return true }
        let descriptor = newStreamSocket()
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        let connected = address.withSockAddr { connect(descriptor, $0, socklen_t($1)) }
        return connected == 0 || (errno != ECONNREFUSED && errno != ENOENT)
    }

    /// A new Unix stream socket bound at `path` (made `mode` when given) and listening, its descriptor non-blocking
    /// and close-on-exec, with the identity of the file it made. With `removingStaleFile`, a socket file there that
    /// refuses connections is removed first; one a server may be listening on is not (``SocketInUse``), nor is a file
    /// of another kind (the bind fails). The look, the removal and the bind are one step under the path's lock
    /// (``SocketPathLock``); `whileWaiting` is called once if another process holds it.
    static func listeningSocket(
        at path: String,
        mode: UInt32?,
        removingStaleFile: Bool,
        whileWaiting: () -> Void
    ) async throws -> (descriptor: Int32, file: SocketFileIdentity?) {
        try await SocketPathLock.holding(path, whileWaiting: whileWaiting) {
            let descriptor = try bindUnlocked(at: path, mode: mode, removingStaleFile: removingStaleFile)
            return (descriptor, SocketFileIdentity(path: path))
        }
    }

    /// ``listeningSocket(at:mode:removingStaleFile:whileWaiting:)`` without the lock, which the caller holds.
    private static func bindUnlocked(at path: String, mode: UInt32?, removingStaleFile: Bool) throws -> Int32 {
        if removingStaleFile, SocketFileIdentity(path: path) != nil {
            guard !isListening(at: path) else { throw SocketInUse(path: path) }
            unlink(path)
        }
        let address = try SocketAddress(unixDomainSocketPath: path)
        let descriptor = newStreamSocket()
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket()") }
        let bound = address.withSockAddr { Glibc.bind(descriptor, $0, socklen_t($1)) }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw IOError(errnoCode: code, reason: "bind(\(path))")
        }
        if let mode, chmod(path, mode_t(mode)) != 0 {
            let code = errno
            close(descriptor)
            unlink(path)
            throw IOError(errnoCode: code, reason: "chmod(\(path))")
        }
        guard listen(descriptor, listenBacklog) == 0 else {
            let code = errno
            close(descriptor)
            unlink(path)
            throw IOError(errnoCode: code, reason: "listen(\(path))")
        }
        return descriptor
    }

    /// A new `AF_UNIX` stream socket, non-blocking and close-on-exec; -1 (and `errno`) when none can be made.
    private static func newStreamSocket() -> Int32 {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    }

    /// Removes the socket file at `path` if it is still `identity`: another server may have bound the path since.
    /// Looked at and removed under the path's lock, so that a server binding meanwhile does not lose its new file
    /// between the look and the removal; without the lock (it could not be had), looked at all the same. The wait
    /// for the lock runs in a task of its own, which the caller's cancellation does not reach: a cancelled server
    /// still waits for another's step to end before it looks.
    static func removeSocketFile(_ path: String, ifStill identity: SocketFileIdentity?) async {
        guard let identity else { return }
        let removeIfStill: @Sendable () -> Void = {
            guard SocketFileIdentity(path: path) == identity else { return }
            unlink(path)
        }
        let underTheLock = Task { try await SocketPathLock.holding(path, whileWaiting: {}, removeIfStill) }
        do {
            try await underTheLock.value
        } catch {
            removeIfStill()
        }
    }
}
