import CMalloc
import Glibc
import Logging
import NIOCore
import NavHostCore
import NavHostKit
import NavHostPluginHost
import NavHostService
import NavHostStorage
import NavHostSystemd
import NavHostVarlink
import UnixSignals

/// `navhostd`'s composition root: builds every part, then runs them as one service group.
///
/// Start-up order: logging, plugins, sessions, the Varlink service, the socket, the plugins folder's watch, the signal
/// handlers, then `READY=1`.
/// The server, the reload handler, the plugins folder's follower and the watchdog run as child tasks of one plain
/// task group, the shape of swift-service-lifecycle's `ServiceGroup` without the package: the stop is ordered (the
/// server drains its connections first, then the other parts are cancelled, then the sessions settle their last
/// writes), and the group's loop says that order in one place. SIGTERM (or SIGINT) shuts down gracefully: `STOPPING=1`, no new
/// connections, in-flight replies finished, watchers ended.
struct Daemon {
    let configuration: DaemonConfiguration
    /// The configuration files the configuration was read from, main file first.
    let configurationFiles: [String]
    /// Reads the configuration files again and layers the command line over them (SIGHUP).
    let reloadConfiguration: @Sendable () throws(ConfigurationError) -> DaemonConfiguration.Loaded
    /// The loop that serves the sockets: the main thread's, which also runs the main actor.
    let eventLoop: any EventLoop

    /// On the main actor, for the parts it makes to be let go there: the sessions' registry, its sessions and their
    /// screens are main-actor objects reached back to through a `Backlink` (NavHostCore), read on the main actor only
    /// and safe only while their last release happens there too (a `deinit` on a pool thread would free an object a
    /// main-actor task is reading). Its locals (`core`, the service's closures, `server`, `reloader`, `status`) hold
    /// them, and are let go in its body, on the main actor; the task group's child closures, let go elsewhere, reach
    /// the registry only through holders with an `isolated deinit` (`DaemonCore` among them).
    @MainActor
    func run() async throws {
        // A SIGHUP before the reload handler is armed must not kill the daemon (its default action).
        signal(SIGHUP, SIG_IGN)
        // A write past the file size limit (`ulimit -f`, systemd's `LimitFSIZE=`) fails with EFBIG, which the caller
        // answers as any failed write, instead of ending the daemon (SIGXFSZ's default action): a Load of a library
        // larger than the limit killed it, and then every start, which loads the same folder (a durability review).
        signal(SIGXFSZ, SIG_IGN)
        let threshold = LogThreshold(configuration.logLevel)
        LoggingSystem.bootstrap(SystemdLogging.handlerFactory(threshold: threshold), metadataProvider: nil)
        let logger = Logger(label: "navhostd")
        let notifier = SystemdNotifier()
        logger.info(
            "Read the configuration",
            metadata: [
                "navhost.config.files":
                    "\(configurationFiles.isEmpty ? "none" : configurationFiles.joined(separator: " "))"
            ]
        )
        let access = AccessControl(configuration.access)
        // Before anything reads or writes the state folder: a second daemon on it is refused.
        try Self.lockStateDirectory(configuration.stateDirectory, logger: logger)
        // Before any plugin loads: a socket another server listens on refuses this daemon now (the bind checks again).
        let inheritedSocket = try SocketActivation.listeningUnixSocket(named: "varlink")
        if inheritedSocket == nil {
            try refuseTakenSocket(logger: logger)
            // And a socket folder this user cannot make: said before the plugins load and the sessions open.
            try makeParentDirectory(of: configuration.socketPath)
        }

        // Before any plugin code runs: a plugin that crashed or stalled the last run is kept out, and one that does
        // so now is named (docs/robustness.md, "Plugin faults").
        let faultGuard = await guardAgainstPluginFaults(logger: logger)
        let stallDetector = configuration.stallLimit.map { MainThreadStallDetector(limit: $0, logger: logger) }
        if let stallDetector { stallDetector.start() }

        let core = try await DaemonCore(
            configuration: configuration,
            faultGuard: faultGuard,
            resumeExecutor: EventLoopTaskExecutor(eventLoop),
            logger: logger
        )
        var service = VarlinkService(
            vendor: "NavHost",
            product: "navhostd",
            version: NavHostVersion.current,
            url: NavHostVersion.documentation
        )
        // GetInfo answers only when the main actor does: a daemon whose calls cannot run never looks healthy.
        service.readiness = { await MainActor.run {} }
        service.add(NavigationInterface.implementation(sessions: core.sessions, access: access))
        service.add(
            PluginsInterface.implementation(
                reports: { await core.pluginReports },
                pluginsFolder: { await core.pluginsFolder },
                control: core.pluginControl,
                access: access
            )
        )

        let server = try await bindServer(inheritedSocket, service: service, access: access, logger: logger)
        // The writer polls after a write as the loop does after a read, and only when it does (SessionHandOff).
        core.persistence.setWriterPollWindow(server.busyPollWindow)
        let reloader = ConfigurationReloader(
            core: core,
            server: server,
            access: access,
            threshold: threshold,
            load: reloadConfiguration,
            logger: logger
        )
        let status = StatusReporter(core: core, server: server)
        let watchdog = try Watchdog.configuredTimeout().map { Watchdog(timeout: $0) }
        if let watchdog { logger.info("Watchdog on", metadata: ["navhost.watchdog.timeout": "\(watchdog.timeout)"]) }
        if let watchdog, let stallLimit = configuration.stallLimit,
            MainThreadStallDetector.longestHold(for: stallLimit) >= watchdog.timeout - watchdog.pingInterval
        {
            // The pings stop as soon as the main thread is held, and the last one may have gone out a ping interval
            // before the hold began: systemd may end the daemon half its time-out into a hold, before the stall
            // detector names the plugin that held it (docs/robustness.md, "Plugin faults").
            logger.warning(
                "The stall limit is not under half the watchdog's time-out: a plugin that holds the main thread may be ended by the service manager, unnamed",
                metadata: [
                    "navhost.stall-limit": "\(stallLimit)", "navhost.watchdog.timeout": "\(watchdog.timeout)",
                ]
            )
        }

        // The plugins folder is watched from before the plugins load, so a plugin dropped in at any time is never
        // missed.
        let pluginFolder = core.pluginFolderMonitor
        // Signals are trapped before READY, so a reload or stop right after READY is never lost.
        let stopSignals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let testHooks = configuration.testHooks ? await UnixSignalsSequence(trapping: .sigusr1) : nil
        try notifier.notify(.ready, .status(await status.line()))
        logger.info("Ready")
        Self.releaseFreedMemory()

        // Each part is a child task; when the server has stopped, the rest are cancelled.
        try await withThrowingTaskGroup(of: DaemonPart.self) { group in
            group.addTask {
                try await server.run()
                return .server
            }
            group.addTask {
                for await _ in stopSignals {
                    logger.info("Stopping")
                    _ = try? notifier.notify(.stopping)
                    stallDetector?.stop()
                    // The sessions close for the stop before the server ends its calls: a call a connection held
                    // behind a Watch starts once the server ends that Watch, and had it reached the sessions first, an
                    // OpenSession or CloseSession went ahead during the stop (`sessionCallsDuringStop`, one run in
                    // many under load). Closed first, the Watch ends as `stopping`, and such a call is refused.
                    await core.shutDown()
                    server.shutdownGracefully()
                    // The last writes the stop queued, of sessions whose file may hold a failed write, land before
                    // the process exits, written again should they fail (a few times: systemd's TimeoutStopSec bounds
                    // a disk that hangs).
                    await core.sessions.settleClosedSessions()
                    break
                }
                return .stopSignals
            }
            group.addTask {
                for await _ in hangups {
                    _ = try? notifier.notify(.reloading)
                    logger.info("Reloading")
                    // The plugins first: a session the new configuration declares may need one just dropped in.
                    await core.rescanAfterHangup()
                    await reloader.reload()
                    _ = try? notifier.notify(.ready, .status(await status.line()))
                    Self.releaseFreedMemory()
                }
                return .reload
            }
            if let pluginFolder {
                group.addTask {
                    await core.follow(pluginFolder)
                    return .pluginFolder
                }
            }
            if let watchdog {
                group.addTask {
                    await watchdog.run()
                    return .watchdog
                }
            }
            if let testHooks {
                group.addTask {
                    for await _ in testHooks {
                        // Logged on the main actor, which then blocks: once the line is out, no watchdog ping is.
                        await MainActor.run {
                            logger.warning("Test hook: wedging the main actor")
                            while true { sleep(3600) }
                        }
                    }
                    return .testHooks
                }
            }
            while let part = try await group.next() {
                if part == .server { group.cancelAll() }
            }
        }
        // Every call is answered now. One whose write began after the stop closed its session (an intent still
        // running at the stop) and failed kept that session for a settle of its own, after the stop's had ended: the
        // process exits once that one has written the refused change out too, and every write queued has landed.
        await core.sessions.settleClosedSessions()
        logger.info("Stopped")
    }

    /// Gives the heap that start-up (or a reload) used and freed back to the system: loading plugins and opening
    /// sessions leave about 0.6 MB of free heap pages resident, which an idle daemon never reuses (the release
    /// build's idle RSS went from 24.4 to 23.8 MB, three runs each).
    private static func releaseFreedMemory() {
        _ = malloc_trim(0)
    }

    /// Takes the state folder's lock for as long as the process lives. When the folder cannot be made or the lock
    /// file cannot be opened at all, the daemon goes on unlocked, and says so.
    ///
    /// - Throws: ``LoggedFailure`` (of a ``StateDirectoryLock/InUse``) when another daemon holds it.
    private static func lockStateDirectory(_ directory: String, logger: Logger) throws {
        do {
            // Its own user's alone, as the unit's StateDirectory= makes it: the sessions, stores and recordings in it
            // are no one else's to read.
            try FileIO.makeDirectories(directory, mode: 0o700)
            _ = try StateDirectoryLock.acquire(directory)
        } catch let inUse as StateDirectoryLock.InUse {
            logger.critical("\(inUse)")
            throw LoggedFailure(inUse)
        } catch {
            logger.warning(
                "Cannot lock the state folder: a second daemon on it would not be refused",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// Moves the fault an earlier run recorded into the ledger, and installs the signal handlers on the main thread.
    /// Without a writable state folder the guard still keeps out what the ledger holds, but names no new culprit.
    private func guardAgainstPluginFaults(logger: Logger) async -> PluginFaultGuard {
        let faultGuard = PluginFaultGuard(stateDirectory: configuration.stateDirectory, logger: logger)
        faultGuard.recordFaultOfLastRun()
        do {
            try FileIO.makeDirectories(configuration.stateDirectory, mode: 0o700)
            try await MainActor.run { try faultGuard.install() }
        } catch {
            logger.warning(
                "Cannot install the plugin fault guard: a plugin that crashes the daemon will not be named",
                metadata: ["error": "\(error)"]
            )
        }
        return faultGuard
    }

    /// Listens on `inherited`, the socket systemd passed (named `varlink`), or binds the configured path.
    private func bindServer(
        _ inherited: Int32?,
        service: VarlinkService,
        access: AccessControl,
        logger: Logger
    ) async throws -> VarlinkServer {
        let serverConfiguration = configuration.admittedServerConfiguration(logger: logger)
        // Control users may take the connections other users cannot (--reserved-connections).
        let isControlUser: @Sendable (VarlinkPeerCredentials?) -> Bool = { access.mayControl($0) }
        if let inherited {
            logger.info("Serving the socket systemd passed", metadata: ["navhost.socket.fd": "\(inherited)"])
            if configuration.socketModeIsGiven {
                // An operator who set it to keep readers out would otherwise believe they were kept out.
                logger.warning(
                    "socket-mode does not apply to the socket systemd passed: its socket unit's SocketMode= and SocketGroup= do (docs/systemd.md)",
                    metadata: ["navhost.socket-mode": "\(configuration.socketModeText)"]
                )
            }
            return try await VarlinkServer.bind(
                listeningSocket: inherited,
                service: service,
                configuration: serverConfiguration,
                isPrivilegedPeer: isControlUser,
                logger: logger,
                eventLoopGroup: eventLoop
            )
        }
        // Again: a folder taken away while the plugins loaded comes back.
        try makeParentDirectory(of: configuration.socketPath)
        try refuseUnsafeSocketFolder(logger: logger)
        do {
            return try await VarlinkServer.bind(
                unixSocketPath: configuration.socketPath,
                socketMode: configuration.socketMode,
                service: service,
                configuration: serverConfiguration,
                isPrivilegedPeer: isControlUser,
                logger: logger,
                eventLoopGroup: eventLoop
            )
        } catch let inUse as VarlinkServer.SocketInUse {
            throw LoggedFailure(Self.socketInUse(inUse, logger: logger))
        } catch let locked as VarlinkServer.SocketPathLocked {
            throw LoggedFailure(Self.socketPathLocked(locked, logger: logger))
        }
    }

    /// Refuses to start when someone other than root and the daemon's user could change the socket's folder, or one on
    /// the way to it (``PathSafety``): they could rename the daemon's socket and bind their own in its place, and
    /// take every call clients make, control calls among them. A sticky folder (`/tmp`) is safe.
    private func refuseUnsafeSocketFolder(logger: Logger) throws {
        let folder = FileIO.parentDirectory(of: configuration.socketPath)
        guard let problem = PathSafety.problem(with: folder) else { return }
        let error = DaemonError(
            "the socket's folder is not safe: \(problem); anyone who can change it could put a socket of their own in "
                + "place of \(configuration.socketPath) and take the clients' calls"
        )
        logger.critical("\(error)")
        throw LoggedFailure(error)
    }

    /// Refuses to start when another server listens on the configured socket.
    private func refuseTakenSocket(logger: Logger) throws {
        do {
            try VarlinkServer.checkSocketIsFree(at: configuration.socketPath)
        } catch {
            throw LoggedFailure(Self.socketInUse(error, logger: logger))
        }
    }

    /// Another daemon, most likely: taking its socket over would leave it running and unreachable.
    private static func socketInUse(_ inUse: VarlinkServer.SocketInUse, logger: Logger) -> DaemonError {
        let error = DaemonError(
            "another server listens on \(inUse.path) (another navhostd?): stop it first, or give this daemon "
                + "another --socket"
        )
        logger.critical("\(error)")
        return error
    }

    /// Another process stuck in its bind or removal of the socket (another navhostd, most likely) held the socket
    /// path's lock all the time the bind waited: said and ended as ``socketInUse(_:logger:)`` is.
    private static func socketPathLocked(_ locked: VarlinkServer.SocketPathLocked, logger: Logger) -> DaemonError {
        let error = DaemonError(
            "another process held \(locked.lockPath), the lock of the socket \(locked.path), for \(locked.patience) "
                + "(another navhostd stuck binding or removing it?): stop it first, or give this daemon another --socket"
        )
        logger.critical("\(error)")
        return error
    }

    private func makeParentDirectory(of path: String) throws {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var current = ""
        while let component = components.first {
            components.removeFirst()
            current += current.isEmpty && component.isEmpty ? "" : "/\(component)"
            if current.isEmpty || current == "/" { continue }
            if mkdir(current, 0o755) != 0, case let failure = errno, failure != EEXIST {
                // Said with the socket and the way out: a non-root daemon without $XDG_RUNTIME_DIR (a su or
                // setpriv shell, a system user) looks for /run/user/UID, which only a login session creates.
                throw DaemonError(
                    "cannot create \(current), the folder of the socket \(path): \(String(cString: strerror(failure))); "
                        + "give --socket (or socket: in navhostd.conf) a path in a folder this user may write"
                )
            }
        }
    }
}

/// The daemon's concurrent parts, as the task group reports them ending.
private enum DaemonPart: Sendable {
    case server, stopSignals, reload, pluginFolder, watchdog, testHooks
}

/// A start-up failure, said in words.
struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A failure the daemon has logged already, at `critical`: `main` exits with status 1 without printing it again (on
/// standard error, which the journal also takes, it showed twice).
struct LoggedFailure: Error, CustomStringConvertible {
    var cause: any Error
    init(_ cause: any Error) { self.cause = cause }
    var description: String { "\(cause)" }
}

/// What `GetInfo` says of the daemon.
enum NavHostVersion {
    /// NavHost's version: the daemon, navctl and the SDK are released together, so it is the SDK's
    /// (`NavHostKit/CHANGELOG.md`), as `navctl --version` and the Debian package say.
    static let current = "\(NavHostKitVersion.current)"
    /// The project's own documentation, where the package installs it (docs/packaging.md).
    static let documentation = "file:///usr/share/doc/navhost/README.md"
}
