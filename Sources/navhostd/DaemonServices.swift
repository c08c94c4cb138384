import Glibc
import Logging
import NavHostSystemd
import NavHostVarlink
import ServiceLifecycle
import UnixSignals

/// Runs the Varlink server until graceful shutdown, then stops it cleanly.
struct VarlinkServerService: Service {
    let server: VarlinkServer
    let notifier: SystemdNotifier
    let core: DaemonCore

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.run()
        } onGracefulShutdown: {
            _ = try? notifier.notify(.stopping)
            server.shutdownGracefully()
            Task { @MainActor in core.shutDown() }
        }
    }
}

/// Sends `READY=1` once the signal handlers are armed, then reloads on every SIGHUP.
struct ReloadService: Service {
    let core: DaemonCore
    let status: StatusReporter
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        // Creating the sequence installs the handler: only then is it safe to say READY.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try notifier.notify(.ready, .status(await status.line()))
        logger.info("Ready")
        try await cancelWhenGracefulShutdown {
            for await _ in hangups {
                try notifier.notify(.reloading)
                logger.info("Reloading")
                await core.reload()
                try notifier.notify(.ready, .status(await status.line()))
            }
        }
    }
}

/// Pings systemd's watchdog from the main actor, so a wedged main actor stops the pings.
struct WatchdogService: Service {
    let watchdog: Watchdog

    func run() async throws {
        try await cancelWhenGracefulShutdown { await watchdog.run() }
    }
}

/// Test-only: SIGUSR1 wedges the main actor, so tests can watch the watchdog fire.
struct TestHooksService: Service {
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1)
        try await cancelWhenGracefulShutdown {
            for await _ in signals {
                logger.warning("Test hook: wedging the main actor")
                await MainActor.run { while true { sleep(3600) } }
            }
        }
    }
}

/// Builds the `STATUS=` line from the core and the server.
struct StatusReporter: Sendable {
    let core: DaemonCore
    let server: VarlinkServer
    let notifier: SystemdNotifier

    func line() async -> String {
        await core.statusLine(clients: server.connectionCount)
    }
}
