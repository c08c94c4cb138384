import Dispatch
import Glibc
import NavHostSystemd

/// The daemon's notification sequence: READY and STATUS at start, RELOADING (with MONOTONIC_USEC), STATUS and
/// READY on SIGHUP, STOPPING on SIGTERM.
@MainActor
enum Lifecycle {
    private static let notifier = SystemdNotifier()
    private static var sources: [any DispatchSourceSignal] = []
    private static var reloads = 0

    static func start() {
        sources = [
            signalSource(SIGHUP) { reload() },
            signalSource(SIGTERM) { stop() },
        ]
        send(.ready)
        send(.status("Serving (probe, 0 reloads)"))
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

    private static func signalSource(
        _ signalNumber: Int32,
        _ handler: @escaping @MainActor () -> Void
    ) -> any DispatchSourceSignal {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
        source.setEventHandler { MainActor.assumeIsolated { handler() } }
        source.resume()
        return source
    }
}
