import Glibc

/// How long a Unix socket's path may be: `sun_path` in `sockaddr_un` holds 108 bytes on Linux, the last a NUL, so a
/// path of 107 bytes at most can be bound or connected to.
///
/// navhostd and navctl check a socket path they are given against it as they start, so that a path too long is said
/// at once, naming the path and the limit, rather than at `bind` after the plugins have loaded, or as a failure to
/// reach the daemon; so does `navhost-plugin-tool run`, before it starts a daemon of the plugin author's own. The
/// daemon's address of systemd's sockets (NavHostSystemd) and the client's error for a path too long (NavHostClient)
/// take the limit from here too: it is computed in this one place.
///
/// ```swift
/// SocketPathLength.problem(with: "/run/navhost/io.navhost")   // nil
/// SocketPathLength.problem(with: longPath)   // "/tmp/…/io.navhost is 131 bytes long; a Unix socket path is 107 at most"
/// ```
public enum SocketPathLength {
    /// The longest path a Unix socket can have, in bytes (UTF-8): 107.
    public static let maximum = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Why `path` cannot name a Unix socket for being too long, naming it, its length and the limit; `nil` when it
    /// fits.
    public static func problem(with path: String) -> String? {
        let length = path.utf8.count
        guard length > maximum else { return nil }
        return "\(path) is \(length) bytes long; a Unix socket path is \(maximum) at most"
    }
}
