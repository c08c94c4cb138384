import Glibc
import Logging
import NavHostCore
import NavHostKit
import NavHostService
import NavHostVarlink

/// Everything `navhostd` is told, with the defaults filled in.
struct DaemonConfiguration: Sendable {
    /// Where to listen when systemd passes no socket.
    var socketPath: String
    /// The directory of staged plugins.
    var pluginDirectory: String
    /// Where sessions and feature storage live.
    var stateDirectory: String
    /// The sessions to open, each with its root route.
    var sessions: [SessionConfiguration]
    /// The least severe level logged.
    var logLevel: Logger.Level
    /// Whether test-only hooks (a signal that wedges the main actor) are on.
    var testHooks: Bool
    /// Whether the plugins folder is watched, so that plugins load, reload and unload as their folders change.
    var watchesPlugins: Bool
    /// Who may control; everyone who can reach the socket may read.
    var access: AccessPolicy
    /// The mode of a socket the daemon binds itself.
    var socketMode: UInt32
    /// The Varlink server's limits: message size and depth, connections, pending calls, timeouts.
    var server: VarlinkServerConfiguration
    /// How sessions bound their watchers and intents.
    var sessionOptions: SessionOptions
    /// How long plugin code may hold the main thread before the daemon exits naming it; `nil` for no limit.
    var stallLimit: Duration?

    init(
        socketPath: String?,
        pluginDirectory: String?,
        stateDirectory: String?,
        sessions: [SessionConfiguration],
        logLevel: Logger.Level,
        testHooks: Bool,
        watchesPlugins: Bool = true,
        access: AccessPolicy = .standard(),
        socketMode: UInt32 = 0o660,
        server: VarlinkServerConfiguration = VarlinkServerConfiguration(),
        sessionOptions: SessionOptions = SessionOptions(),
        stallLimit: Duration? = .seconds(10),
        environment: [String: String] = DaemonConfiguration.processEnvironment()
    ) {
        let isRoot = getuid() == 0
        self.socketPath = socketPath ?? Self.defaultSocketPath(isRoot: isRoot, environment: environment)
        self.pluginDirectory = pluginDirectory ?? "/usr/lib/navhost/plugins"
        self.stateDirectory = stateDirectory ?? Self.defaultStateDirectory(isRoot: isRoot, environment: environment)
        self.sessions = sessions.isEmpty ? [SessionConfiguration(root: RouteRequest(id: "home.main"))] : sessions
        self.logLevel = logLevel
        self.testHooks = testHooks
        self.watchesPlugins = watchesPlugins
        self.access = access
        self.socketMode = socketMode
        self.server = server
        self.sessionOptions = sessionOptions
        self.stallLimit = stallLimit
    }

    /// A group given by name or number, as its ID.
    static func groupID(_ text: String) -> UInt32? {
        if let number = UInt32(text) { return number }
        return getgrnam(text).map { $0.pointee.gr_gid }
    }

    /// `NAME=ROUTE` as a session configuration.
    static func parseSession(_ text: String) -> SessionConfiguration? {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains(".") else { return nil }
        return SessionConfiguration(name: parts[0], root: RouteRequest(id: parts[1]))
    }

    /// `/run/navhost/io.navhost` for root, `$XDG_RUNTIME_DIR/navhost/io.navhost` for anyone else.
    static func defaultSocketPath(isRoot: Bool, environment: [String: String]) -> String {
        if isRoot { return "/run/navhost/io.navhost" }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(getuid())"
        return "\(runtime)/navhost/io.navhost"
    }

    /// systemd's `$STATE_DIRECTORY`, else `/var/lib/navhost` for root, else `$XDG_STATE_HOME/navhost`.
    static func defaultStateDirectory(isRoot: Bool, environment: [String: String]) -> String {
        if let systemd = environment["STATE_DIRECTORY"], !systemd.isEmpty {
            // systemd passes a colon-separated list when the unit names several; the first is ours.
            return String(systemd.split(separator: ":").first ?? Substring(systemd))
        }
        if isRoot { return "/var/lib/navhost" }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return "\(state)/navhost" }
        return "\(environment["HOME"] ?? homeDirectory())/.local/state/navhost"
    }

    /// This process's environment. (Read from `environ`: the daemon does not link Foundation, whose libraries and
    /// their ICU data add about 5 MB to its resident memory.)
    static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return environment
    }

    /// The home directory of the user the daemon runs as, from the password database.
    static func homeDirectory() -> String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }
}
