import Glibc

/// What is at a socket's path: navctl's hints and the client's errors tell "no daemon there" from "not a socket".
///
/// ```swift
/// SocketFile.isSocket("/run/navhost/io.navhost")   // true while navhostd.socket listens
/// ```
public enum SocketFile {
    /// Whether a socket is at `path`, following symbolic links: a regular file there refuses connections too, and
    /// says nothing of a daemon.
    public static func isSocket(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
    }
}
