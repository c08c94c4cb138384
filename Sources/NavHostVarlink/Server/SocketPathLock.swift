internal import Glibc
internal import NIOCore

/// Makes a server's look at its socket path and what it does there one step for every server on the path: the look
/// for a live server and the bind, or, at the end, the look at the file and its removal.
///
/// Without it, two servers started at once over a stale socket file could each find it stale; the first would bind
/// and listen, the second remove that new file and bind its own, and the first listen on a socket nobody can reach
/// any more. The lock is an exclusive `flock` of `<socket path>.lock`, beside the socket, held for that one step. The
/// file stays: removing it would let a third server lock a new file while the second holds the old one.
enum SocketPathLock {
    /// How long a server waits for another to finish its step before it gives up: the step is a few system calls, so
    /// a holder this slow is stuck.
    static let patience: Duration = .seconds(10)

    /// Runs `body` holding the lock of the socket at `socketPath`, waiting for another holder up to ``patience``;
    /// `whileWaiting` is called once, when it must wait. The wait suspends the task, not its thread: a thread of the
    /// concurrency pool (two on a two-core machine) held in a sleep for seconds stalls every other task meanwhile.
    ///
    /// - Throws: ``VarlinkServer/SocketPathLocked`` when another process held the lock all that time; `IOError` when
    ///   the lock file cannot be opened or locked; `CancellationError` when the task is cancelled while it waits;
    ///   what `body` throws.
    static func holding<Result>(
        _ socketPath: String,
        whileWaiting: () -> Void,
        _ body: () throws -> Result
    ) async throws -> Result {
        let descriptor = try await lock(socketPath, whileWaiting: whileWaiting)
        defer { close(descriptor) }
        return try body()
    }

    /// The open lock file of the socket at `socketPath`, locked.
    private static func lock(_ socketPath: String, whileWaiting: () -> Void) async throws -> Int32 {
        let path = socketPath + ".lock"
        // Readable by all: a server running as another user later can still lock a file an earlier run as root left,
        // since `flock` needs no write access.
        // Not through a symbolic link: one planted beside the socket would have the lock file made where it points.
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if descriptor < 0, errno == EACCES { descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "open(\(path))") }
        let deadline = ContinuousClock.now + patience
        var waited = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw IOError(errnoCode: code, reason: "flock(\(path))")
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw VarlinkServer.SocketPathLocked(path: socketPath, patience: patience)
            }
            if !waited {
                waited = true
                whileWaiting()
            }
            // Polled, not a blocking `flock`: a stuck holder must not hold this server for good.
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                close(descriptor)
                throw error
            }
        }
        return descriptor
    }
}
