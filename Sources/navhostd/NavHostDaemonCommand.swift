import ArgumentParser
import Glibc
import Logging
import NIOCore
import NIOPosix
import NavHostService
import NavHostSocketPath
import NavHostStorage

/// `navhostd`'s command line.
struct NavHostDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navhostd",
        abstract: "Runs an application's navigation and presentation logic as a daemon.",
        discussion: """
            navhostd reads /etc/navhost/navhostd.conf and its drop-ins (navhostd.conf(5)) when they exist, then the \
            options given here, which override them. It loads the feature plugins of a directory, opens the \
            configured sessions, and serves \
            io.navhost.Navigation and io.navhost.Plugins over Varlink on a Unix socket. Under systemd it uses the \
            socket named "varlink" that the .socket unit passes, reports READY/STATUS/STOPPING, pings the watchdog \
            and reloads on SIGHUP. A second navhostd on the same state folder, or on a socket a server still \
            listens on, is refused (exit status 1).

            Exit status: 0 after SIGTERM or SIGINT; 1 when it cannot start (another daemon holds the state folder \
            or the socket, a folder it cannot create); 64 \
            for a command line it cannot take; 70 when a plugin held the main thread past --stall-limit; 78 for a \
            configuration that is not valid. Signals: SIGHUP reads the configuration again; SIGTERM and SIGINT stop \
            it. Files: /etc/navhost/navhostd.conf, its navhostd.conf.d/ drop-ins, the state folder (sessions, \
            plugin faults, recordings). /usr/share/doc/navhost/docs/troubleshooting.md goes by symptom.

            Examples:
              navhostd --plugins .build/debug/plugins
              navhostd --socket /tmp/nav.sock --session main=home.main
              navhostd --session main=home.main --session kiosk=products.list
              navhostd --config /etc/navhost/navhostd.conf --check-config
            """,
        version: "navhostd \(NavHostVersion.current)"
    )

    @Option(
        help: ArgumentHelp(
            "The configuration file; then every *.conf of PATH.d/, in name order. Options given here override it. (default: /etc/navhost/navhostd.conf, when it exists)",
            valueName: "path"
        )
    )
    var config: String?

    @Flag(help: "Check the configuration file, its drop-ins and the options, print what they amount to, and exit.")
    var checkConfig = false

    @Option(
        help:
            "The socket to listen on, when systemd passes none: 107 bytes at most, once made absolute. (default: $XDG_RUNTIME_DIR/navhost/io.navhost, or /run/navhost/io.navhost for root)"
    )
    var socket: String?

    @Option(help: "The directory of staged plugins to load. (default: /usr/lib/navhost/plugins)")
    var plugins: String?

    @Option(
        name: .customLong("state-dir"),
        help:
            "Where sessions and feature storage are kept. (default: $STATE_DIRECTORY, /var/lib/navhost for root, else $XDG_STATE_HOME/navhost)"
    )
    var stateDirectory: String?

    @Option(
        name: .customLong("session"),
        help: "A session and its root route, as NAME=ROUTE; repeat for more. (default: main=home.main)"
    )
    var sessions: [String] = []

    @Option(
        help: "The least severe level logged: trace, debug, info, notice, warning, error or critical. (default: info)"
    )
    var logLevel: String?

    @Option(
        name: .customLong("control-uid"),
        help: ArgumentHelp(
            "A user (name or ID) who may control, besides root and the daemon's own user; repeat for more. A name must be a user's when the daemon starts.",
            valueName: "user"
        )
    )
    var controlUsers: [String] = []

    @Option(
        name: .customLong("control-group"),
        help: "A group (name or ID) whose members may control, besides navhost; repeat for more."
    )
    var controlGroups: [String] = []

    @Option(
        help:
            "The mode of a socket the daemon binds itself, in octal. Control is decided by peer credentials, so a wider mode only lets more users read. (default: 0660)"
    )
    var socketMode: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Load, reload and unload plugins as their folders change in the plugins directory (inotify), or, with --no-watch-plugins, only at start, on SIGHUP and by navctl plugins. (default: --watch-plugins)"
    )
    var watchPlugins: Bool?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Write each session's flight recording to <state-dir>/recordings/<session>.navrec as it is made, as well as keeping it in memory, so it outlives a crash (docs/recording.md); --no-flight-recorder-on-disk keeps it in memory only. (default: --no-flight-recorder-on-disk)"
    )
    var flightRecorderOnDisk: Bool?

    @OptionGroup(title: "Limits")
    var limits: LimitOptions

    @Flag(help: .hidden)
    var enableTestHooks = false

    /// A test hook: each write of the state folder's files (sessions, the opened-sessions list, plugin overrides) waits
    /// this many milliseconds before it begins, so that a kill -9 right after a reply that did not wait for its write
    /// comes first (`DelayedDiskWrites`).
    @Option(help: .hidden)
    var testStateWriteDelay: Int?

    mutating func validate() throws {
        if let delay = testStateWriteDelay, !enableTestHooks || delay < 0 {
            throw ValidationError("--test-state-write-delay is a test hook: milliseconds, with --enable-test-hooks")
        }
        // Relative paths are the shell's, so they are taken against the directory navhostd starts in, once: a
        // reload reads the same files and folders, and what the daemon logs and reports names them whole. (A
        // configuration file has no such base: it refuses relative paths.)
        config = try config.map { try Self.resolving($0, option: "config") }
        socket = try socket.map { try Self.resolving($0, option: "socket") }
        plugins = try plugins.map { try Self.resolving($0, option: "plugins") }
        stateDirectory = try stateDirectory.map { try Self.resolving($0, option: "state-dir") }
        // Checked whole, as it is bound: said now, before the plugins load, not by the bind after them.
        if let socket, let problem = SocketPathLength.problem(with: socket) {
            throw ValidationError("--socket \(problem)")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level \"\(logLevel)\"")
        }
        for session in sessions where DaemonConfiguration.parseSession(session) == nil {
            throw ValidationError("--session takes NAME=ROUTE, not \"\(session)\"")
        }
        if let socketMode, DaemonConfiguration.parseSocketMode(socketMode) == nil {
            throw ValidationError("--socket-mode takes an octal mode like 0660, not \"\(socketMode)\"")
        }
        for user in controlUsers where DaemonConfiguration.userID(user) == nil {
            throw ValidationError("--control-uid: no user \"\(user)\"")
        }
        for group in controlGroups where DaemonConfiguration.groupID(group) == nil {
            throw ValidationError("--control-group: no group \"\(group)\"")
        }
    }

    /// `path` made absolute against the current directory, with `.`, `..` and repeated slashes resolved as written.
    private static func resolving(_ path: String, option: String) throws -> String {
        guard let absolute = AbsolutePath.resolving(path) else {
            throw ValidationError("--\(option) \(path): a relative path, and the current directory cannot be read")
        }
        return absolute
    }

    /// What the command line says; what it leaves out comes from the configuration file, then the defaults.
    var commandLineSettings: DaemonSettings {
        var settings = DaemonSettings()
        settings.socket = socket
        settings.plugins = plugins
        settings.stateDirectory = stateDirectory
        settings.logLevel = logLevel.flatMap(Logger.Level.init(rawValue:))
        settings.socketMode = socketMode.flatMap(DaemonConfiguration.parseSocketMode)
        settings.watchPlugins = watchPlugins
        settings.flightRecorderOnDisk = flightRecorderOnDisk
        settings.sessions = sessions.compactMap(DaemonConfiguration.parseSession).map { session in
            (session.name, DaemonSettings.Session(root: session.root))
        }
        settings.controlUIDs = controlUsers.isEmpty ? nil : controlUsers.compactMap(DaemonConfiguration.userID)
        settings.controlGroups = controlGroups.isEmpty ? nil : controlGroups
        settings.limits = limits.settings
        return settings
    }

    /// Reads the configuration file and its drop-ins, and layers the command line over them.
    ///
    /// - Throws: ``ConfigurationError`` naming the file, line and key at fault (or `the defaults` for a default
    ///   socket path too long for a Unix socket).
    func loadConfiguration() throws(ConfigurationError) -> DaemonConfiguration.Loaded {
        let path = config ?? ConfigurationFile.defaultPath
        let (fileSettings, files) = try ConfigurationFile.load(path, required: config != nil)
        let settings = fileSettings.overridden(by: commandLineSettings)
        if let problem = settings.limits.firstProblem() {
            // Only the cross-check is left: name where each of the two limits comes from.
            let fromCommandLine = commandLineSettings.limits
            let source =
                fromCommandLine.reservedConnections != nil || fromCommandLine.maxConnections != nil
                ? "the command line" : (files.isEmpty ? "the defaults" : files.joined(separator: ", "))
            throw ConfigurationError(file: source, key: "limits.\(problem.key)", message: problem.message)
        }
        let configuration = DaemonConfiguration(
            settings: settings,
            testHooks: enableTestHooks,
            stateWriteDelay: testStateWriteDelay.map { .milliseconds($0) }
        )
        // The option and the file's key are checked as they are read; the default is made from $XDG_RUNTIME_DIR.
        if settings.socket == nil, let problem = SocketPathLength.problem(with: configuration.socketPath) {
            throw ConfigurationError(
                file: "the defaults",
                key: "socket",
                message: "\(problem) (made from $XDG_RUNTIME_DIR): give --socket, or socket: in navhostd.conf, "
                    + "a shorter one"
            )
        }
        return DaemonConfiguration.Loaded(configuration: configuration, files: files)
    }

    func run() async throws {
        try await run(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
    }

    /// Runs the daemon with its sockets on `eventLoop` (navhostd's is its main thread, `MainThreadEventLoop`).
    ///
    /// - Throws: `ExitCode(78)` (`EX_CONFIG`) after printing why, when the configuration is not valid.
    func run(eventLoop: any EventLoop) async throws {
        let loaded: DaemonConfiguration.Loaded
        do {
            loaded = try loadConfiguration()
        } catch {
            let message = Array("navhostd: \(error)\n".utf8)
            _ = message.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            throw ExitCode(78)
        }
        if checkConfig {
            print(loaded.summary)
            return
        }
        let reload: @Sendable () throws(ConfigurationError) -> DaemonConfiguration.Loaded = {
            [self] () throws(ConfigurationError) in
            try loadConfiguration()
        }
        try await Daemon(
            configuration: loaded.configuration,
            configurationFiles: loaded.files,
            reloadConfiguration: reload,
            eventLoop: eventLoop
        ).run()
    }
}
