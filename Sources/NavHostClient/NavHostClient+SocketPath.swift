import Glibc

// MARK: - Default socket path

extension NavHostClient {
    /// The environment variable that names the daemon's socket, overriding the default.
    public static let socketEnvironmentVariable = "NAVHOST_SOCKET"

    /// The socket of the system daemon, as `navhostd.socket` listens on it.
    public static let systemSocketPath = "/run/navhost/io.navhost"

    /// The socket path to use when none is given.
    ///
    /// In order:
    /// 1. `$NAVHOST_SOCKET`, when set and not empty;
    /// 2. for root, the system daemon's socket, `/run/navhost/io.navhost`;
    /// 3. for anyone else, `$XDG_RUNTIME_DIR/navhost/io.navhost` (a daemon the user runs themselves), with
    ///    `/run/user/UID` standing in for an unset `XDG_RUNTIME_DIR`.
    ///
    /// Steps 2 and 3 are where `navhostd` listens when it is given no `--socket`. A user who drives the system
    /// daemon passes its socket (``systemSocketPath``) or sets `NAVHOST_SOCKET`.
    ///
    /// ```swift
    /// NavHostClient.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000)
    /// // "/run/user/1000/navhost/io.navhost"
    /// ```
    ///
    /// - Parameters:
    ///   - environment: The environment variables to read; the process's own when `nil`.
    ///   - userID: The caller's user ID; the process's own when `nil`. Root (0) uses the system socket.
    public static func defaultSocketPath(environment: [String: String]? = nil, userID: UInt32? = nil) -> String {
        func variable(_ name: String) -> String? {
            let value = environment.map { $0[name] } ?? getenv(name).map { String(cString: $0) }
            guard let value, !value.isEmpty else { return nil }
            return value
        }
        if let configured = variable(socketEnvironmentVariable) { return configured }
        let userID = userID ?? getuid()
        if userID == 0 { return systemSocketPath }
        var runtimeDirectory = variable("XDG_RUNTIME_DIR") ?? "/run/user/\(userID)"
        if runtimeDirectory.hasSuffix("/") { runtimeDirectory.removeLast() }
        return "\(runtimeDirectory)/navhost/io.navhost"
    }
}
