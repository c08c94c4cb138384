import CSystemd

/// Keeps systemd's watchdog fed: pings at half the time-out, from the MainActor.
///
/// Each ping hops onto the MainActor, the executor that runs Router and ViewModel work. If that executor wedges
/// (a ViewModel that never returns, a dead lock), the hop never completes, the pings stop, and systemd restarts the
/// service after `WatchdogSec=`. A ping from a thread of its own would keep a wedged daemon looking healthy.
///
/// `run()` follows swift-service-lifecycle's shape: the work happens in `run()`, which returns when its task is
/// cancelled.
///
/// ```swift
/// if let timeout = try Watchdog.configuredTimeout() {
///     group.addTask { await Watchdog(timeout: timeout).run() }
/// }
/// ```
public struct Watchdog: Sendable {
    // MARK: - Private Properties

    private let ping: @MainActor @Sendable () -> Void
    private let sleep: @Sendable (Duration) async throws -> Void

    // MARK: - Public Properties

    /// The time-out systemd enforces (`WatchdogSec=`, passed as `WATCHDOG_USEC`).
    public let timeout: Duration

    /// How long the watchdog waits between pings: half the time-out.
    public var pingInterval: Duration { timeout / 2 }

    // MARK: - Initialization

    /// Creates a watchdog.
    ///
    /// - Parameters:
    ///   - timeout: The time-out systemd enforces; see ``configuredTimeout(unsetEnvironment:)``.
    ///   - ping: What one ping does, run on the MainActor. By default, sends `WATCHDOG=1` with
    ///     ``SystemdNotifier``; a failure to send is ignored, as systemd then restarts the service anyway.
    ///   - sleep: How to wait between pings; it must throw when its task is cancelled. By default,
    ///     `Task.sleep(for:)` on the continuous clock. Tests pass a clock of their own.
    public init(
        timeout: Duration,
        ping: @escaping @MainActor @Sendable () -> Void = Watchdog.notifyServiceManager,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.timeout = timeout
        self.ping = ping
        self.sleep = sleep
    }

    // MARK: - Public Functions

    /// The watchdog time-out systemd set for this process, or `nil` when there is none.
    ///
    /// Reads `WATCHDOG_USEC` through `sd_watchdog_enabled(3)`, which also checks that `WATCHDOG_PID`, when set, is
    /// this process.
    ///
    /// - Parameter unsetEnvironment: Whether to remove `WATCHDOG_USEC` and `WATCHDOG_PID`, so children do not
    ///   inherit them.
    /// - Returns: The time-out, or `nil` when the watchdog is off or meant for another process.
    /// - Throws: ``SystemdError`` with ``SystemdError/Code/watchdogQueryFailed`` when the variables are malformed.
    public static func configuredTimeout(unsetEnvironment: Bool = false) throws(SystemdError) -> Duration? {
        var microseconds: UInt64 = 0
        let result = sd_watchdog_enabled(unsetEnvironment ? 1 : 0, &microseconds)
        if result < 0 {
            throw SystemdError(
                code: .watchdogQueryFailed,
                message: "WATCHDOG_USEC or WATCHDOG_PID is malformed",
                systemErrorNumber: -result
            )
        }
        guard result > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// Sends `WATCHDOG=1` to the service manager; the default ``init(timeout:ping:sleep:)`` ping.
    @MainActor
    public static func notifyServiceManager() {
        _ = try? SystemdNotifier().notify(.watchdog)
    }

    /// Pings now, then every ``pingInterval``, until the task is cancelled.
    ///
    /// A ping waits for the MainActor; while the MainActor is busy, no ping is sent.
    public func run() async {
        while !Task.isCancelled {
            await ping()
            do {
                try await sleep(pingInterval)
            } catch {
                return
            }
        }
    }
}
