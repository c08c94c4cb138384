import Glibc

/// Keeps a second `navhostd` off a state folder this one uses.
///
/// Two daemons on one folder each write the sessions' records and the journal as if alone: after a crash, one
/// daemon's acknowledged changes are gone under the other's. The lock is an exclusive `flock` of `<state-dir>/lock`,
/// held as long as the process lives (the kernel lets it go at any exit, `kill -9` included); the file holds the
/// holder's process ID, for the message a second daemon gives.
struct StateDirectoryLock {
    /// The open lock file; never closed, which would let the lock go.
    private let descriptor: Int32

    /// Takes the lock of `directory`, which must exist.
    ///
    /// - Throws: ``InUse`` when another process holds it; `DaemonError` when the lock file cannot be opened.
    static func acquire(_ directory: String) throws -> StateDirectoryLock {
        let path = "\(directory)/lock"
        // Readable by all (it holds a process ID): a daemon running as another user later can still lock it.
        // Not through a symbolic link: the lock is cut to nothing and written, wherever a planted link would point.
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        // A lock file another user left (an earlier run as root): `flock` needs no write access.
        if descriptor < 0, errno == EACCES { descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else {
            throw DaemonError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            // The holder writes its process ID just after it locks: give it a moment.
            var holder = Self.holder(descriptor)
            for _ in 0..<10 where holder == nil {
                usleep(10_000)
                holder = Self.holder(descriptor)
            }
            close(descriptor)
            if code == EWOULDBLOCK { throw InUse(directory: directory, holder: holder) }
            throw DaemonError("cannot lock \(path): \(String(cString: strerror(code)))")
        }
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return StateDirectoryLock(descriptor: descriptor)
    }

    /// Another daemon uses the state folder.
    struct InUse: Error, CustomStringConvertible {
        var directory: String
        /// The process ID the lock file names, when it names one.
        var holder: Int32?

        var description: String {
            let who = holder.map { "navhostd (process \($0))" } ?? "another navhostd"
            return "\(who) uses the state folder \(directory): stop it first, or give this daemon another --state-dir"
        }
    }

    /// The process ID the lock file names (its first line), if it names one yet.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }
}
