import Logging
import NavHostService
import NavHostSystemd
import NavHostVarlink

/// Reads the configuration again on SIGHUP (`systemctl reload navhostd`) and puts a valid one in force without
/// dropping a client: new limits for the connections and calls that follow, new control users and groups for the
/// next call, configured sessions opened and closed, the new log level. An invalid one is refused with the same
/// message the daemon would give at start, logged at `error` level and kept in `STATUS=`; the running
/// configuration stays.
///
/// A SIGHUP runs it second: `Daemon.run`'s hang-up task says `RELOADING=1`, has the core rescan the plugins and
/// reopen what could not open (`DaemonCore.rescanAfterHangup()`), then runs ``reload()``, then says `READY=1`.
struct ConfigurationReloader: Sendable {
    let core: DaemonCore
    let server: VarlinkServer
    let access: AccessControl
    let threshold: LogThreshold
    let load: @Sendable () throws(ConfigurationError) -> DaemonConfiguration.Loaded
    let logger: Logger

    func reload() async {
        let loaded: DaemonConfiguration.Loaded
        do {
            loaded = try load()
        } catch {
            logger.error(
                "Refused the new configuration; the running one stays",
                metadata: ["error": "\(error)", "navhost.config.file": "\(error.file)"]
            )
            await MainActor.run { core.configurationProblem = "\(error)" }
            return
        }
        let configuration = loaded.configuration
        server.apply(configuration.admittedServerConfiguration(logger: logger))
        core.persistence.setWriterPollWindow(server.busyPollWindow)
        access.replace(with: configuration.access)
        threshold.level = configuration.logLevel
        var (changed, needsRestart) = await MainActor.run {
            core.configurationProblem = nil
            return core.apply(configuration)
        }
        // Polling needs what the server sets up at its start (one poller for its loop).
        if configuration.server.busyPollWindow != nil, !server.canBusyPoll {
            needsRestart.append("limits.busy-poll (the daemon started with it off, or may use only one CPU)")
        }
        // READY=1 follows the reload: a session opened over the wire that the configuration took over has left the
        // list of opened sessions on disk first, or a restart could bring it back as opened over the wire.
        await core.sessions.adoptedSessionsWritten()
        logger.info(
            "Reloaded the configuration",
            metadata: [
                "navhost.config.files": "\(loaded.files.joined(separator: " "))",
                "navhost.config.changed": "\(changed.isEmpty ? "nothing" : changed.joined(separator: ", "))",
            ]
        )
        if !needsRestart.isEmpty {
            logger.warning(
                "Some configuration changes take effect at the next start",
                metadata: ["navhost.config.needs-restart": "\(needsRestart.joined(separator: ", "))"]
            )
        }
    }
}
