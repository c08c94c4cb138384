import Glibc
import NavHostSystemd

/// The daemon's notification sequence: READY and STATUS at start, RELOADING (with MONOTONIC_USEC), STATUS and
/// READY on SIGHUP, STOPPING on SIGTERM.
@MainActor
enum Lifecycle {
    private static let notifier = SystemdNotifier()
    private static var reloads = 0

    static func start() {
        SignalWaiter.start([SIGHUP: { reload() }, SIGTERM: { stop() }]) {
            send(.ready)
            send(.status("Serving (probe, 0 reloads)"))
        }
    }

    private static func reload() {
        send(.reloading)
        send(.status("Reloading plugins"))
        reloads += 1
        send(.ready)
        send(.status("Serving (probe, \(reloads) reloads)"))
    }

    private static func stop() {
        send(.stopping)
        send(.status("Shutting down"))
        exit(0)
    }

    private static func send(_ message: SystemdNotifier.Message) {
        do {
            try notifier.notify(message)
        } catch {
            Output.line("notify failed: \(error)")
            exit(1)
        }
    }
}
