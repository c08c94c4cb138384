import Glibc
import Logging
import NavHostCommandLine
import NavHostCore
import NavHostKit
import NavHostService
import NavHostStorage
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
    /// Whether test-only hooks are on: SIGUSR1 wedges the main actor, and `--test-state-write-delay` is accepted.
    var testHooks: Bool
    /// A test hook: how long each write of the state folder's session files, opened-sessions list and plugin overrides
    /// waits before it begins (``DelayedDiskWrites``); `nil`, the default, for none.
    var stateWriteDelay: Duration?
    /// Whether the plugins folder is watched, so that plugins load, reload and unload as their folders change.
    var watchesPlugins: Bool
    /// Who may control; everyone who can reach the socket may read.
    var access: AccessPolicy
    /// The mode of a socket the daemon binds itself.
    var socketMode: UInt32
    /// Whether a file or the command line gave ``socketMode``: a socket systemd passes keeps the socket unit's mode,
    /// and the daemon says so.
    var socketModeIsGiven = false
    /// ``socketMode`` as a mode is written: `0660`.
    var socketModeText: String { "0\(String(socketMode, radix: 8))" }
    /// The Varlink server's limits: message size and depth, connections, pending calls, timeouts.
    var server: VarlinkServerConfiguration
    /// How sessions bound their watchers and intents.
    var sessionOptions: SessionOptions
    /// How long plugin code may hold the main thread before the daemon exits naming it; `nil` for no limit.
    var stallLimit: Duration?

    /// Each configured session's own options (`max-stack-depth`, `intent-timeout`), by name.
    var sessionSettings: [String: DaemonSettings.Session]

    /// A configuration and the files it was read from.
    struct Loaded: Sendable {
        var configuration: DaemonConfiguration
        /// The configuration files read, main file first; empty when there were none.
        var files: [String]

        /// What `--check-config` prints: the files, then the configuration in force.
        var summary: String {
            var lines = ["navhostd: the configuration is valid"]
            lines.append(
                files.isEmpty ? "files: none (defaults and options only)" : "files: \(files.joined(separator: ", "))"
            )
            let c = configuration
            lines.append("socket: \(c.socketPath) (mode \(c.socketModeText) when navhostd binds it)")
            lines.append("plugins: \(c.pluginDirectory)")
            lines.append("state-dir: \(c.stateDirectory)")
            lines.append("log-level: \(c.logLevel)")
            lines.append("sessions: \(c.sessions.map { "\($0.name)=\($0.root.id)" }.joined(separator: " "))")
            // The limits a session may set for itself, as the limits line and each such session's line say them.
            let sessionLimits = { (options: SessionOptions) in
                "max-stack-depth \(options.maxStackDepth), "
                    + "intent-timeout \(options.intentTimeLimit.map { "\($0)" } ?? "none")"
            }
            for session in c.sessions {
                guard let own = c.sessionSettings[session.name], own.maxStackDepth != nil || own.intentTimeout != nil
                else { continue }
                lines.append("session \(session.name): \(sessionLimits(c.options(forSession: session.name)))")
            }
            // Root and the user running navhostd are always listed (AccessPolicy.standard): here, the user running
            // the check. The standard group is looked up by name when a client first asks to control, so it is shown
            // by name.
            let users = c.access.controlUIDs.sorted().map { uid in
                uid == 0 ? "0 (root)" : uid == getuid() ? "\(uid) (this user)" : "\(uid)"
            }
            var groups = c.access.controlGIDs.sorted().map(String.init)
            if let name = c.access.deferredControlGroup { groups.append("\(name) (when the group exists)") }
            lines.append("control users: \(users.joined(separator: ", "))")
            lines.append("control groups: \(groups.isEmpty ? "(none)" : groups.joined(separator: ", "))")
            lines.append(
                "limits: max-connections \(c.server.maxConnections), max-connections-per-uid "
                    + "\(c.server.maxConnectionsPerUID), \(sessionLimits(c.sessionOptions)), "
                    + "watch-queue-limit \(c.sessionOptions.watcherLimit), "
                    + "stall-limit \(c.stallLimit.map { "\($0)" } ?? "none"), "
                    + "busy-poll \(TimeLimit(c.server.busyPollWindow))"
            )
            return lines.joined(separator: "\n")
        }
    }

    /// The configuration `settings` describe, with the defaults for what they leave out.
    init(
        settings: DaemonSettings,
        testHooks: Bool,
        stateWriteDelay: Duration? = nil,
        environment: [String: String] = DaemonConfiguration.processEnvironment()
    ) {
        let isRoot = getuid() == 0
        self.socketPath = settings.socket ?? Self.defaultSocketPath(isRoot: isRoot, environment: environment)
        // Absolute, as `navctl plugins load` sends a folder: the watcher names each folder from this path, and a
        // relative one would make a plugin loaded by hand look like another (`make run` passes a relative one).
        let plugins = settings.plugins ?? "/usr/lib/navhost/plugins"
        self.pluginDirectory = AbsolutePath.resolving(plugins) ?? plugins
        self.stateDirectory =
            settings.stateDirectory ?? Self.defaultStateDirectory(isRoot: isRoot, environment: environment)
        let declared = settings.declaredSessions
        self.sessions = declared.isEmpty ? [SessionConfiguration(root: RouteRequest(id: "home.main"))] : declared
        self.sessionSettings = Dictionary(
            uniqueKeysWithValues: settings.sessions.compactMap { name, session in session.map { (name, $0) } }
        )
        self.logLevel = settings.logLevel ?? .info
        self.testHooks = testHooks
        self.stateWriteDelay = stateWriteDelay
        self.watchesPlugins = settings.watchPlugins ?? true
        var access = AccessPolicy.standard()
        access.controlUIDs.formUnion(settings.controlUIDs ?? [])
        access.controlGIDs.formUnion((settings.controlGroups ?? []).compactMap(Self.groupID))
        self.access = access
        self.socketMode = settings.socketMode ?? 0o660
        self.socketModeIsGiven = settings.socketMode != nil
        self.server = settings.limits.server
        self.sessionOptions = settings.limits.session
        if settings.flightRecorderOnDisk == true {
            sessionOptions.flightRecorderDirectory = "\(stateDirectory)/recordings"
        }
        self.stallLimit = settings.limits.stallDuration
    }

    /// The server's limits, with `max-connections` lowered (and said, in a warning) where the file descriptor limit
    /// cannot be raised to cover it.
    func admittedServerConfiguration(logger: Logger) -> VarlinkServerConfiguration {
        var configuration = server
        configuration.maxConnections = FileDescriptorLimit.admit(
            connections: configuration.maxConnections,
            logger: logger
        )
        // The connections' event loop is the main thread, which runs the main actor (MainThreadEventLoop): a call's
        // handler starts as the main actor's, where the sessions are.
        configuration.runsHandlersOnMainActor = true
        return configuration
    }

    /// The options of the configured session `name`: the limits', with what the session sets itself.
    func options(forSession name: String) -> SessionOptions {
        sessionSettings[name]?.options(over: sessionOptions) ?? sessionOptions
    }

    /// A user given by name or number, as its ID: a number is taken as it is, a name looked up (NSS, `getpwnam`);
    /// `nil` for a name no user has. `control.users` and `--control-uid` read users with it.
    static func userID(_ text: String) -> UInt32? {
        if let number = UInt32(text) { return number }
        return getpwnam(text).map { $0.pointee.pw_uid }
    }

    /// A group given by name or number, as its ID.
    static func groupID(_ text: String) -> UInt32? {
        if let number = UInt32(text) { return number }
        return AccessPolicy.groupID(named: text)
    }

    /// `NAME=ROUTE` as a session configuration.
    static func parseSession(_ text: String) -> SessionConfiguration? {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains(".") else { return nil }
        return SessionConfiguration(name: parts[0], root: RouteRequest(id: parts[1]))
    }

    /// An octal mode like `0660` as a socket's mode: permission bits only (at most `0777`).
    static func parseSocketMode(_ text: String) -> UInt32? {
        guard let mode = UInt32(text, radix: 8), mode <= 0o777 else { return nil }
        return mode
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
