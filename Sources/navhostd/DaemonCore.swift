import Logging
import NavHostCore
import NavHostKit
import NavHostPluginHost
import NavHostService
import NavHostStorage
import NavHostWire

/// The daemon's state on the main actor: the features, the plugins' reports and the sessions.
@MainActor
final class DaemonCore {
    /// The configuration in force: the one the daemon started with, with what reloads changed since.
    private(set) var configuration: DaemonConfiguration
    /// Why the last configuration reload was refused, until one succeeds; `nil` when none was.
    var configurationProblem: String?
    let catalog = FeatureCatalog()
    let sessions: SessionRegistry
    /// Where the sessions' records are written: ``sessions``' persistence.
    nonisolated let persistence: SessionPersistence
    let plugins: PluginRegistry
    /// Loads, reloads and unloads plugins with the sessions kept in step.
    let pluginControl: PluginControl
    private let logger: Logger
    /// Why the state folder cannot be written, found at start and at each reload; `nil` when it can.
    private(set) var stateFolderProblem: String?

    /// The plugins folder watched since start (`watch-plugins`); `nil` when it is not, or cannot be.
    private(set) var pluginFolderMonitor: PluginFolderMonitor?

    /// Every plugin found, loaded or quarantined, as `io.navhost.Plugins.List` reports it.
    var pluginReports: [PluginInfo] { pluginControl.reports }

    /// The folder plugins are loaded from, as `io.navhost.Plugins.List` reports it: the one watched since start, or,
    /// when none is, the configuration's (loaded at start and at SIGHUP only).
    var pluginsFolder: PluginsInterface.PluginsFolder {
        guard let pluginFolderMonitor else {
            return PluginsInterface.PluginsFolder(path: configuration.pluginDirectory, isWatched: false)
        }
        return PluginsInterface.PluginsFolder(path: pluginFolderMonitor.directory, isWatched: true)
    }

    /// On the main actor, wherever the last reference goes (the service's closures hold the core, and run off it):
    /// the session registry it holds must be freed there (the rule in Backlink.swift).
    isolated deinit {}

    init(
        configuration: DaemonConfiguration,
        faultGuard: PluginFaultGuard?,
        resumeExecutor: (any TaskExecutor)? = nil,
        logger: Logger
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        self.persistence = SessionPersistence(
            directory: configuration.stateDirectory,
            writes: Self.stateWrites(configuration),
            resumeExecutor: resumeExecutor
        )
        self.sessions = SessionRegistry(
            catalog: catalog,
            persistence: persistence,
            openedSessions: OpenedSessionsFile(
                directory: configuration.stateDirectory,
                writes: Self.stateWrites(configuration)
            ),
            logger: logger
        )
        self.plugins = PluginRegistry(
            catalog: catalog,
            stateDirectory: configuration.stateDirectory,
            logger: logger,
            faultGuard: faultGuard
        )
        self.pluginControl = PluginControl(
            registry: plugins,
            sessions: sessions,
            overrides: PluginOverridesFile(
                directory: configuration.stateDirectory,
                writes: Self.stateWrites(configuration)
            )
        )
        sessions.loadedPlugins = { [plugins] in
            plugins.loadedPlugins.map { status in
                SessionRecording.Plugin(name: status.name, version: status.version?.description ?? "unknown")
            }
        }
        if let recordings = configuration.sessionOptions.flightRecorderDirectory {
            do {
                try FileIO.makeDirectories(recordings, mode: 0o700)
            } catch {
                logger.warning("Cannot make the flight recordings' folder", metadata: ["error": "\(error)"])
            }
        }
        stateFolderProblem = Self.writeProblem(in: configuration.stateDirectory)
        if let stateFolderProblem {
            logger.error(
                "The state folder cannot be written: changes will be refused with StorageFailed until it can",
                metadata: [
                    "navhost.state.directory": "\(configuration.stateDirectory)", "error": "\(stateFolderProblem)",
                ]
            )
        }
        sessions.updateDefaultOptions(configuration.sessionOptions)
        sessions.openConfiguredSessions = { [weak self] in self?.openSessions() }
        // A plugin that loads may bring the root route a session waited for.
        pluginControl.onPluginServing = { [weak self] in
            self?.openSessions()
            self?.sessions.openListedSessions()
        }
        // Watched first: a plugin folder that changes while the plugins load is taken as a change, with no second
        // look at every folder (which tried each quarantined one again, and said so twice).
        pluginFolderMonitor = configuration.watchesPlugins ? watchPluginFolder() : nil
        loadPlugins()
        sessions.loadOpenedList()
        sessions.declareConfiguredSessions(Set(configuration.sessions.map(\.name)))
        openSessions()
        sessions.openListedSessions()
        // READY=1 follows: the list no longer names the sessions the configuration took over, on disk first.
        await sessions.adoptedSessionsWritten()
    }

    /// How the state folder's files are written: as they ship, or, under the test hook `--test-state-write-delay`,
    /// each write begun only after the delay (``DelayedDiskWrites``).
    private static func stateWrites(_ configuration: DaemonConfiguration) -> any SessionFileWrites {
        configuration.stateWriteDelay.map { DelayedDiskWrites(delay: $0) } ?? DiskWrites()
    }

    /// Puts what a reloaded configuration changed in force, without dropping a client: configured sessions added
    /// are opened and those taken out closed (their saved state stays, for when they come back), every session
    /// takes the new limits. What only a restart can change (socket, folders, socket mode, watching the plugins
    /// folder) stays as it is.
    ///
    /// - Returns: What changed, and what waits for a restart, for the log.
    func apply(_ new: DaemonConfiguration) -> (changed: [String], needsRestart: [String]) {
        let old = configuration
        var changed: [String] = []
        var needsRestart: [String] = []
        if new.socketPath != old.socketPath { needsRestart.append("socket") }
        if new.pluginDirectory != old.pluginDirectory { needsRestart.append("plugins") }
        if new.stateDirectory != old.stateDirectory { needsRestart.append("state-dir") }
        if new.socketMode != old.socketMode { needsRestart.append("socket-mode") }
        if new.watchesPlugins != old.watchesPlugins { needsRestart.append("watch-plugins") }
        var next = new
        next.socketPath = old.socketPath
        next.pluginDirectory = old.pluginDirectory
        next.stateDirectory = old.stateDirectory
        next.socketMode = old.socketMode
        next.watchesPlugins = old.watchesPlugins
        next.testHooks = old.testHooks
        next.stateWriteDelay = old.stateWriteDelay
        configuration = next

        let openBefore = Set(new.sessions.map(\.name).filter { (try? sessions.session($0)) != nil })
        sessions.declareConfiguredSessions(Set(new.sessions.map(\.name)))
        let kept = Set(new.sessions.map(\.name))
        for session in old.sessions where !kept.contains(session.name) && sessions.opened[session.name] == nil {
            // A name waiting to open once an earlier session's writes land, or whose root could not open, had no
            // session to close.
            guard (try? sessions.session(session.name)) != nil else { continue }
            sessions.close(session.name)
            changed.append("session \(session.name) closed")
        }
        // A session that could not open (its root route refused) opens now at the new root: no restart needed.
        for session in new.sessions where openBefore.contains(session.name) {
            let previous = old.sessions.first { $0.name == session.name }
            if let previous, previous.root != session.root {
                needsRestart.append("sessions.\(session.name).root (for a session with no saved stack)")
            }
        }
        if new.stallLimit != old.stallLimit { needsRestart.append("limits.stall-limit") }
        if new.sessionOptions.flightRecorderDirectory != old.sessionOptions.flightRecorderDirectory {
            needsRestart.append("flight-recorder-on-disk")
        }
        if new.sessionOptions.flightRecorderCalls != old.sessionOptions.flightRecorderCalls {
            needsRestart.append("limits.flight-recorder-calls (for the sessions open now)")
        }
        openSessions()
        // Declared now, or declared before but not open then (its root route refused), and open now.
        for session in new.sessions where !openBefore.contains(session.name) {
            if (try? sessions.session(session.name)) != nil {
                changed.append("session \(session.name) opened")
            } else if !old.sessions.contains(where: { $0.name == session.name }), !sessions.isBusy(session.name),
                !sessions.isShutDown
            {
                changed.append("session \(session.name) declared, its root not open yet")
            }
        }
        sessions.updateDefaultOptions(new.sessionOptions)
        for session in new.sessions {
            try? sessions.session(session.name).updateOptions(new.options(forSession: session.name))
        }
        let bounds = { (options: SessionOptions) in
            "\(options.maxStackDepth) \(options.watcherLimit) \(String(describing: options.intentTimeLimit))"
        }
        // A session declared only now is reported as opened above, not as a change of limits.
        let keptSessionLimitsChanged = new.sessions.contains { session in
            old.sessions.contains { $0.name == session.name }
                && bounds(new.options(forSession: session.name)) != bounds(old.options(forSession: session.name))
        }
        if bounds(new.sessionOptions) != bounds(old.sessionOptions) || keptSessionLimitsChanged {
            changed.append("session limits")
        }
        if new.server != old.server { changed.append("connection limits") }
        if new.access.controlUIDs != old.access.controlUIDs || new.access.controlGIDs != old.access.controlGIDs
            || new.access.deferredControlGroup != old.access.deferredControlGroup
        {
            changed.append("control users and groups")
        }
        if new.logLevel != old.logLevel { changed.append("log level \(new.logLevel)") }
        return (changed, needsRestart)
    }

    /// What a SIGHUP does before the configuration is read again (`ConfigurationReloader.reload()` does that, after
    /// this; `Daemon.run`'s hang-up task runs both): tries a write in the state folder again; rescans the plugin
    /// directory (loads new plugins, reloads changed ones, unloads vanished ones); then opens the sessions whose root
    /// route was missing, saying again why one still cannot open, and tries again the removals refused earlier.
    func rescanAfterHangup() async {
        // A SIGHUP during the stop: the sessions are closed for good, and none is opened again.
        guard !sessions.isShutDown else {
            logger.info("Ignored a reload: the daemon is stopping")
            return
        }
        await recheckStateFolder()
        // The check may have waited for the disk: the stop may have begun meanwhile.
        guard !sessions.isShutDown else { return }
        // A reload says again what still cannot open, whether or not its configuration is taken.
        // Why each configured session could not open is logged once per reload, not again at each plugin that loads.
        sessions.configuredOpenFailures.forgetAll()
        sessions.listedOpenFailures.forgetAll()
        pluginControl.rescan(configuration.pluginDirectory)
        openSessions()
        sessions.openListedSessions()
        pluginControl.retryRefusedChanges()
    }

    /// Tries a write in the state folder again, off the main thread (a hung disk must not hold it), and says when the
    /// answer changed since the last check: `STATUS=` follows it. Between checks, each change's own write finds out
    /// (`StorageFailed`).
    private func recheckStateFolder() async {
        let directory = configuration.stateDirectory
        let problem = await Task.detached { Self.writeProblem(in: directory) }.value
        guard problem != stateFolderProblem else { return }
        stateFolderProblem = problem
        let metadata: Logger.Metadata = ["navhost.state.directory": "\(configuration.stateDirectory)"]
        if let problem {
            logger.error(
                "The state folder cannot be written: changes will be refused with StorageFailed until it can",
                metadata: metadata.merging(["error": "\(problem)"]) { first, _ in first }
            )
        } else {
            logger.notice("The state folder can be written again", metadata: metadata)
        }
    }

    /// Starts watching the plugins folder, before the plugins load at start: a change made while they load, or once
    /// `READY=1` has gone out, is among the monitor's changes, which ``follow(_:)`` takes. A folder that does not exist
    /// yet is watched for, and followed once created (or moved or linked into place). `nil`, with a warning, when the
    /// folder cannot be watched (SIGHUP still rescans it).
    private func watchPluginFolder() -> PluginFolderMonitor? {
        let monitor: PluginFolderMonitor
        do {
            monitor = try PluginFolderMonitor(directory: configuration.pluginDirectory)
        } catch {
            logger.warning(
                "Cannot watch the plugins folder; send SIGHUP to rescan it",
                metadata: ["navhost.plugins.directory": "\(configuration.pluginDirectory)", "error": "\(error)"]
            )
            return nil
        }
        if FileIO.kind(of: monitor.directory) == nil {
            logger.notice(
                "The plugins folder does not exist yet: its plugins load once it is created",
                metadata: ["navhost.plugins.directory": "\(monitor.directory)"]
            )
        } else {
            logger.info("Watching the plugins folder", metadata: ["navhost.plugins.directory": "\(monitor.directory)"])
        }
        return monitor
    }

    /// Follows the plugins folder `monitor` watches until cancelled: plugins load, reload and unload as their folders
    /// change.
    func follow(_ monitor: PluginFolderMonitor) async {
        await withTaskCancellationHandler {
            await pluginControl.follow(configuration.pluginDirectory, changes: monitor.changes)
        } onCancel: {
            monitor.stop()
        }
    }

    /// A line for `STATUS=`: plugins, sessions, clients.
    func statusLine(clients: Int) -> String {
        let loaded = plugins.loadedPlugins.count
        let quarantined = plugins.quarantinedPlugins.count
        let sessionCount = sessions.names.count
        var line =
            "\(loaded) plugins loaded, \(quarantined) quarantined; "
            + "\(sessionCount) session\(sessionCount == 1 ? "" : "s"); "
            + "\(clients) client\(clients == 1 ? "" : "s")"
        if let stateFolderProblem { line += "; state folder not writable (\(stateFolderProblem))" }
        if let configurationProblem { line += "; configuration not reloaded (\(configurationProblem))" }
        for (name, note) in sessions.restoreNotes.sorted(by: { $0.key < $1.key }) {
            if case .discarded(let reason, _) = note {
                line +=
                    "; session \(name): saved state \(reason == .corrupt ? "corrupt" : "of unknown version"), started fresh"
            }
        }
        return line
    }

    /// Ends every session: screens disappear, watchers end.
    func shutDown() {
        pluginControl.closeWatchers()
        sessions.shutDown()
    }

    /// Why a file cannot be created in `directory` (made when missing), in the system's words; `nil` when it can.
    /// A real write, not `access(2)`: root passes permission checks, and only a write meets a read-only or full disk.
    nonisolated private static func writeProblem(in directory: String) -> String? {
        do {
            try FileIO.makeDirectories(directory, mode: 0o700)
            try FileIO.writeAtomically(Array("navhostd\n".utf8), to: "\(directory)/.write-check")
            FileIO.remove("\(directory)/.write-check")
            return nil
        } catch {
            // Without the temporary file's name, which differs each time: the same problem reads the same.
            return "\(directory): \(error.message)"
        }
    }

    private func loadPlugins() {
        plugins.removeImagesOfEarlierRuns()
        pluginControl.loadAtStart(from: configuration.pluginDirectory)
    }

    private func openSessions() {
        guard !sessions.isShutDown else { return }
        // A name a wire call is opening or closing is that call's until it is done, and one whose earlier session's
        // writes are under way waits for them to land; then the registry calls this again.
        for session in configuration.sessions
        where (try? sessions.session(session.name)) == nil && !sessions.isBusy(session.name) {
            do {
                let options = configuration.options(forSession: session.name)
                guard try sessions.openOnceEarlierWritesLand(session, options: options) != nil else { continue }
                sessions.configuredOpenFailures.forget(session.name)
                logger.info(
                    "Opened session",
                    metadata: ["navhost.session": "\(session.name)", "navhost.route": "\(session.root.id)"]
                )
            } catch {
                guard sessions.configuredOpenFailures.isNew(session.name, because: "\(error)") else { continue }
                logger.error(
                    "Cannot open a configured session at its root route",
                    metadata: [
                        "navhost.session": "\(session.name)", "navhost.route": "\(session.root.id)",
                        "error": "\(error)",
                    ]
                )
            }
        }
    }
}
