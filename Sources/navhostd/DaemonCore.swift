import Logging
import NavHostCore
import NavHostKit
import NavHostService

/// The daemon's state on the main actor: the features, the plugins' reports and the sessions.
@MainActor
final class DaemonCore {
    let configuration: DaemonConfiguration
    let catalog = FeatureCatalog()
    let sessions: SessionRegistry
    let plugins: PluginRegistry
    /// Loads, reloads and unloads plugins with the sessions kept in step.
    let pluginControl: PluginControl
    private let logger: Logger

    /// Every plugin found, loaded or quarantined, as `io.navhost.Plugins.List` reports it.
    var pluginReports: [PluginReport] { plugins.statuses.map(\.report) }

    init(configuration: DaemonConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        self.sessions = SessionRegistry(
            catalog: catalog,
            persistence: SessionPersistence(directory: configuration.stateDirectory),
            logger: logger
        )
        self.plugins = PluginRegistry(catalog: catalog, stateDirectory: configuration.stateDirectory, logger: logger)
        self.pluginControl = PluginControl(registry: plugins, sessions: sessions)
        loadPlugins()
        openSessions()
    }

    /// Rescans the plugin directory (SIGHUP): loads new plugins, reloads changed ones, unloads vanished ones.
    func reload() {
        pluginControl.rescan(configuration.pluginDirectory)
        openSessions()
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
        sessions.closeAll()
    }

    private func loadPlugins() {
        plugins.loadAll(from: configuration.pluginDirectory)
    }

    private func openSessions() {
        for session in configuration.sessions where (try? sessions.session(session.name)) == nil {
            do {
                try sessions.open(session, options: configuration.sessionOptions)
                logger.info(
                    "Opened session",
                    metadata: ["navhost.session": "\(session.name)", "navhost.route": "\(session.root.id)"]
                )
            } catch {
                logger.error(
                    "Cannot open session: its root route is not available",
                    metadata: [
                        "navhost.session": "\(session.name)", "navhost.route": "\(session.root.id)",
                        "error": "\(error)",
                    ]
                )
            }
        }
    }
}
