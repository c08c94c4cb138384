import ArgumentParser
import Logging
import NIOCore
import NIOPosix
import NavHostService

/// `navhostd`'s command line.
struct NavHostDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navhostd",
        abstract: "Runs an application's navigation and presentation logic as a daemon.",
        discussion: """
            navhostd loads the feature plugins of a directory, opens the configured sessions, and serves \
            io.navhost.Navigation and io.navhost.Plugins over Varlink on a Unix socket. Under systemd it uses the \
            socket named "varlink" that the .socket unit passes, reports READY/STATUS/STOPPING, pings the watchdog \
            and reloads on SIGHUP.

            Examples:
              navhostd --plugins .build/debug/plugins
              navhostd --socket /tmp/nav.sock --session main=home.main
              navhostd --session main=home.main --session kiosk=products.list
            """
    )

    @Option(
        help:
            "The socket to listen on, when systemd passes none. (default: $XDG_RUNTIME_DIR/navhost/io.navhost, or /run/navhost/io.navhost for root)"
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

    @Option(help: "The least severe level logged: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @Option(
        name: .customLong("control-uid"),
        help: "A user ID that may control; repeat for more. (default: root and the daemon's own user)"
    )
    var controlUIDs: [UInt32] = []

    @Option(
        name: .customLong("control-group"),
        help: "A group (name or ID) whose members may control; repeat for more. (default: navhost)"
    )
    var controlGroups: [String] = []

    @Option(
        help:
            "The mode of a socket the daemon binds itself, in octal. Control is decided by peer credentials, so a wider mode only lets more users read."
    )
    var socketMode: String = "0660"

    @Flag(
        inversion: .prefixedNo,
        help: "Load, reload and unload plugins as their folders change in the plugins directory (inotify)."
    )
    var watchPlugins = true

    @OptionGroup(title: "Limits")
    var limits: LimitOptions

    @Flag(help: .hidden)
    var enableTestHooks = false

    mutating func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level \"\(logLevel)\"")
        }
        for session in sessions where DaemonConfiguration.parseSession(session) == nil {
            throw ValidationError("--session takes NAME=ROUTE, not \"\(session)\"")
        }
        guard UInt32(socketMode, radix: 8).map({ $0 <= 0o777 }) == true else {
            throw ValidationError("--socket-mode takes an octal mode like 0660, not \"\(socketMode)\"")
        }
        for group in controlGroups where DaemonConfiguration.groupID(group) == nil {
            throw ValidationError("--control-group: no group \"\(group)\"")
        }
    }

    /// The standard policy, widened by `--control-uid` and `--control-group`.
    private var accessPolicy: AccessPolicy {
        var policy = AccessPolicy.standard()
        policy.controlUIDs.formUnion(controlUIDs)
        policy.controlGIDs.formUnion(controlGroups.compactMap(DaemonConfiguration.groupID))
        return policy
    }

    func run() async throws {
        try await run(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
    }

    /// Runs the daemon with its sockets on `eventLoop` (navhostd's is its main thread, `MainThreadEventLoop`).
    func run(eventLoop: any EventLoop) async throws {
        let configuration = DaemonConfiguration(
            socketPath: socket,
            pluginDirectory: plugins,
            stateDirectory: stateDirectory,
            sessions: sessions.compactMap(DaemonConfiguration.parseSession),
            logLevel: Logger.Level(rawValue: logLevel) ?? .info,
            testHooks: enableTestHooks,
            watchesPlugins: watchPlugins,
            access: accessPolicy,
            socketMode: UInt32(socketMode, radix: 8) ?? 0o660,
            server: limits.server,
            sessionOptions: limits.session,
            stallLimit: limits.stallLimit.duration
        )
        try await Daemon(configuration: configuration, eventLoop: eventLoop).run()
    }
}
