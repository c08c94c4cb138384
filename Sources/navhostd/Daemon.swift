import Glibc
import Logging
import NavHostCore
import NavHostService
import NavHostSystemd
import NavHostVarlink
import ServiceLifecycle
import UnixSignals

/// `navhostd`'s composition root: builds every part, then runs them as one service group.
///
/// Start-up order: logging, plugins, sessions, the Varlink service, the socket; then the group runs the server, the
/// watchdog and the reload handler, and `READY=1` goes out once the signal handlers are armed. SIGTERM (or SIGINT)
/// shuts down gracefully: `STOPPING=1`, no new connections, in-flight replies finished, watchers ended.
struct Daemon {
    let configuration: DaemonConfiguration

    func run() async throws {
        // A SIGHUP before the reload handler is armed must not kill the daemon (its default action).
        signal(SIGHUP, SIG_IGN)
        LoggingSystem.bootstrap(SystemdLogging.handlerFactory(logLevel: configuration.logLevel), metadataProvider: nil)
        let logger = Logger(label: "navhostd")
        let notifier = SystemdNotifier()

        let core = try await DaemonCore(configuration: configuration, logger: logger)
        var service = VarlinkService(
            vendor: "NavHost",
            product: "navhostd",
            version: NavHostVersion.current,
            url: "https://github.com/navhost/navhost"
        )
        service.add(NavigationInterface.implementation(sessions: core.sessions, access: configuration.access))
        service.add(PluginsInterface.implementation { await core.pluginReports })

        let server = try await bindServer(service: service, logger: logger)
        let status = StatusReporter(core: core, server: server, notifier: notifier)

        var services: [any Service] = [
            VarlinkServerService(server: server, notifier: notifier, core: core),
            ReloadService(core: core, status: status, notifier: notifier, logger: logger),
        ]
        if let timeout = try Watchdog.configuredTimeout() {
            logger.info("Watchdog on", metadata: ["navhost.watchdog.timeout": "\(timeout)"])
            services.append(WatchdogService(watchdog: Watchdog(timeout: timeout)))
        }
        if configuration.testHooks {
            services.append(TestHooksService(logger: logger))
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        logger.info("Stopped")
    }

    /// Listens on the socket systemd passed (named `varlink`), or binds the configured path.
    private func bindServer(service: VarlinkService, logger: Logger) async throws -> VarlinkServer {
        var serverConfiguration = VarlinkServerConfiguration()
        serverConfiguration.maxConnections = 4096
        serverConfiguration.maxConnectionsPerUID = 2048
        if let inherited = try SocketActivation.listeningUnixSocket(named: "varlink") {
            logger.info("Serving the socket systemd passed", metadata: ["navhost.socket.fd": "\(inherited)"])
            return try await VarlinkServer.bind(
                listeningSocket: inherited,
                service: service,
                configuration: serverConfiguration,
                logger: logger
            )
        }
        try makeParentDirectory(of: configuration.socketPath)
        logger.info("Listening", metadata: ["navhost.socket": "\(configuration.socketPath)"])
        return try await VarlinkServer.bind(
            unixSocketPath: configuration.socketPath,
            socketMode: configuration.socketMode,
            service: service,
            configuration: serverConfiguration,
            logger: logger
        )
    }

    private func makeParentDirectory(of path: String) throws {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var current = ""
        while let component = components.first {
            components.removeFirst()
            current += current.isEmpty && component.isEmpty ? "" : "/\(component)"
            if current.isEmpty || current == "/" { continue }
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw DaemonError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
    }
}

/// A start-up failure, said in words.
struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The daemon's version, for `GetInfo`.
enum NavHostVersion {
    static let current = "0.1.0"
}
