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
    ///    `/run/user/UID` standing in for an unset `XDG_RUNTIME_DIR`, when a socket is there;
    /// 4. else the system daemon's socket, when one is there: an operator in group `navhost` reaches the system
    ///    daemon without options;
    /// 5. else the user's own path of step 3, which an error then names.
    ///
    /// Steps 2 and 3 are where `navhostd` listens when it is given no `--socket`.
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
        defaultSocketPath(environment: environment, userID: userID, isSocket: NavHostClientError.isSocket)
    }

    /// ``defaultSocketPath(environment:userID:)``, with `isSocket` saying whether a socket is at a path (tests).
    package static func defaultSocketPath(
        environment: [String: String]?,
        userID: UInt32?,
        isSocket: (String) -> Bool
    ) -> String {
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
        let own = "\(runtimeDirectory)/navhost/io.navhost"
        return !isSocket(own) && isSocket(systemSocketPath) ? systemSocketPath : own
    }
}
