internal import CFaultGuard
import Dispatch
import Glibc
public import Logging
import Synchronization

/// Notices when the main thread stops turning, and ends the daemon so that it comes back without the plugin at fault.
///
/// The main actor runs on the main thread (navhostd runs its event loop and the main actor there:
/// `Sources/navhostd/MainThreadEventLoop.swift`): every session, every ViewModel and every plugin's code, and every
/// socket. A plugin that
/// blocks it (a synchronous wait, a lock, an endless loop) stops every call of every client; no time limit can
/// interrupt code that never yields. A thread of the detector's own posts a heartbeat to the main queue several times
/// per `limit` (a tick: a quarter of it, at most 250 ms); once the main thread has surely been held for `limit` (a
/// heartbeat has waited that long to run), it probes the main thread through the ``PluginFaultGuard``, which
/// records the plugin whose code is on its stack, logs the stall at `critical` and exits with status 70
/// (`EX_SOFTWARE`). systemd restarts the service (`Restart=on-failure`), and the plugin stays quarantined
/// (``QuarantineReason/Code/stalled``) until its library changes.
///
/// A heartbeat's wait is counted a tick at most per look of the detector, never by the clock alone: a daemon stopped
/// as a whole (`SIGSTOP`, a cgroup freeze, a debugger) or a detector thread held up by the machine's load counts a
/// tick for the gap. Without stops the daemon is never ended before the main thread was held for `limit`; each stop
/// may bring that forward by up to a tick (however long it lasts), and a held-up detector names a stall later. Under
/// a debugger, run with `--stall-limit off`: every resume counts a tick.
///
/// The limit sits well under the unit's `WatchdogSec=`, so the daemon names the culprit before systemd's watchdog
/// kills it without a word. While the main thread is held, the watchdog pings (sent from the main actor) stop too.
public final class MainThreadStallDetector: Sendable {
    // MARK: Private Properties

    private let limit: Duration
    private let logger: Logger
    private let beatPending = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    /// The thread that ran the last heartbeat: the one most likely to be serving the main queue now.
    private let mainQueueThread = Atomic<Int32>(0)

    // MARK: Initialization

    /// A detector that ends the daemon when the main thread is held for longer than `limit`.
    public init(limit: Duration, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    // MARK: Public Functions

    /// Starts watching the main actor.
    @MainActor
    public func start() {
        mainQueueThread.store(navhost_fault_guard_current_thread(), ordering: .relaxed)
        // A serial queue of its own gets a thread of its own (an overcommitting one), never one of the cooperative
        // pool's; the daemon does not link Foundation, so no `Thread`.
        DispatchQueue(label: "navhost.stall-detector").async { [self] in watch() }
    }

    /// Stops watching (at shutdown, when the main thread is about to be busy closing things).
    public func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    /// The longest a hold of the main thread can last before a detector with `limit` ends the daemon: the limit, a
    /// tick for the heartbeat that may have been due when the hold began, and a tick for the detector's own check.
    /// That is running time with the detector on time: a stop of the daemon, or its thread held up, adds to it (and
    /// systemd's watchdog clock does not stop meanwhile).
    public static func longestHold(for limit: Duration) -> Duration {
        limit + .nanoseconds(2 * tick(for: nanoseconds(limit)))
    }

    // MARK: Private Functions

    /// How often the detector posts a heartbeat and checks: a quarter of the limit, at most 250 ms, at least 1 ms.
    private static func tick(for limitNanoseconds: Int64) -> Int64 {
        max(min(limitNanoseconds / 4, 250_000_000), 1_000_000)
    }

    private func watch() {
        let limitNanoseconds = Self.nanoseconds(limit)
        let tick = Self.tick(for: limitNanoseconds)
        var lastLook = Self.now()
        // How long the pending heartbeat has surely waited for the main thread (counted only while one is pending).
        var held: Int64 = 0
        while !stopped.load(ordering: .relaxed) {
            usleep(useconds_t(tick / 1_000))
            let now = Self.now()
            guard beatPending.exchange(true, ordering: .acquiringAndReleasing) else {
                held = 0
                DispatchQueue.main.async { [self] in
                    mainQueueThread.store(navhost_fault_guard_current_thread(), ordering: .relaxed)
                    beatPending.store(false, ordering: .releasing)
                }
                // Counted from the posting: a wait here before it is not the heartbeat's.
                lastLook = Self.now()
                continue
            }
            // A tick at most per look: a longer gap is this thread's own lateness, or the whole daemon stopped (the
            // main thread with it), not surely holding. Measured by the clock from the last heartbeat that ran, a hold
            // that began just before the next was due ended the daemon up to a tick early, and a stop of the daemon
            // (SIGSTOP, a cgroup freeze, a debugger) longer than the limit ended it at once.
            held += min(now - lastLook, tick)
            lastLook = now
            if held > limitNanoseconds, !stopped.load(ordering: .relaxed) {
                endDaemon(held: .nanoseconds(held))
            }
        }
    }

    private func endDaemon(held: Duration) -> Never {
        let detail = "held the main thread for more than \(limit)"
        let named = navhost_fault_guard_probe(mainQueueThread.load(ordering: .relaxed), detail, 500)
        let label = String(cString: navhost_fault_guard_last_label())
        let plugin = label.split(separator: " ").first.map(String.init)
        if named == 1, let plugin {
            logger.critical(
                "A plugin held the main thread; exiting so that the service restarts without it",
                metadata: [
                    "navhost.plugin": "\(plugin)", "navhost.stall.limit": "\(limit)", "navhost.stall.held": "\(held)",
                ]
            )
        } else {
            logger.critical(
                "The main thread is held, not by a plugin's code; exiting so that the service restarts",
                metadata: ["navhost.stall.limit": "\(limit)", "navhost.stall.held": "\(held)"]
            )
        }
        _exit(70)
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
