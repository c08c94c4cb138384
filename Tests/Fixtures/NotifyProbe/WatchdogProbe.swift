import Glibc
import NavHostSystemd

/// Runs ``Watchdog`` as the daemon does. With `wedgeAfter`, the MainActor blocks for good right after that many
/// pings (announced with `STATUS=wedged`), as a wedged ViewModel would block it.
@MainActor
enum WatchdogProbe {
    private static var pings = 0

    static func start(wedgeAfter: Int?) {
        let timeout: Duration
        do {
            guard let configured = try Watchdog.configuredTimeout() else {
                Output.line("watchdog is off")
                exit(2)
            }
            timeout = configured
        } catch {
            Output.line("\(error)")
            exit(1)
        }
        let watchdog = Watchdog(timeout: timeout) {
            Watchdog.notifyServiceManager()
            pings += 1
            if pings == wedgeAfter { wedge() }
        }
        Task.detached { await watchdog.run() }
    }

    /// Blocks the MainActor's thread until the process is killed.
    private static func wedge() {
        _ = try? SystemdNotifier().notify(.status("wedged"))
        while true { pause() }
    }
}
