import Glibc

/// The real `navhostd`, started the way systemd starts it (`NOTIFY_SOCKET` set), measured from `posix_spawn` until
/// it says `READY=1`.
final class DaemonProcess {
    /// The process started: the daemon's, or under a wrapper (`--daemon-wrapper`) the wrapper's.
    let pid: pid_t
    /// The daemon's own process, whose CPU time, context switches and memory are measured and which signals are sent
    /// to: ``pid``, or under a wrapper that starts the daemon as a child (`strace -f`, `perf record`) that child.
    let daemonPID: pid_t
    /// The socket clients connect to.
    let socketPath: String
    /// Nanoseconds from `posix_spawn` to the `READY=1` datagram.
    let startNanoseconds: UInt64
    /// Where the daemon's stdout and stderr go.
    let logPath: String
    private let notify: NotifyListener
    private let stopGraceMilliseconds: Int
    private var stopped = false

    /// How to start daemons: the binary, the plugins, the sessions, and a folder for their files.
    struct Launch {
        /// The `navhostd` binary.
        var executable: String
        /// The staged plugin directory (`--plugins`).
        var plugins: String
        /// `NAME=ROUTE` sessions.
        var sessions: [String]
        /// Where sockets, state directories and logs go.
        var workDirectory: String
        /// A command put before the daemon's (`valgrind --tool=callgrind`, say); empty for none.
        var wrapper: [String] = []
        /// How long to wait for `READY=1`.
        var readyTimeoutMilliseconds = 60_000
        /// How long a SIGTERM may take to end the daemon before SIGKILL. Under valgrind this covers writing its
        /// profile, which it does only as the daemon exits: a daemon killed instead leaves an empty file.
        var stopGraceMilliseconds = 10_000
    }

    /// Starts a daemon with a fresh state directory and waits for `READY=1`.
    ///
    /// - Parameter name: Names its socket, state directory and log inside the work directory.
    init(_ launch: Launch, name: String) throws {
        let base = "\(launch.workDirectory)/\(name)"
        socketPath = "\(base).sock"
        logPath = "\(base).log"
        notify = try NotifyListener(path: "\(base).notify")
        stopGraceMilliseconds = launch.stopGraceMilliseconds
        var arguments =
            launch.wrapper + [
                launch.executable, "--socket", socketPath, "--plugins", launch.plugins, "--state-dir", "\(base).state",
                // Room for 1,000 watchers or 1,000 idle connections, all of this user, beside the drivers.
                "--max-connections", "4096", "--max-connections-per-uid", "4096",
            ]
        for session in launch.sessions { arguments += ["--session", session] }
        // A wrapper such as valgrind slows the daemon fifty times and more, and on a loaded machine the main thread
        // then runs past the stall limit with no plugin at fault (1,000 watchers' snapshots at once, say): the
        // daemon would end itself with status 70 in the middle of a run, its clients refused.
        if !launch.wrapper.isEmpty { arguments += ["--stall-limit", "off"] }
        var environment = Subprocess.currentEnvironment
        environment["NOTIFY_SOCKET"] = notify.path
        for variable in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            environment[variable] = nil
        }
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw BenchError.system("open(\(logPath))") }
        defer { close(log) }
        let started = MonotonicClock.now()
        pid = try Subprocess.spawn(arguments, environment: environment, output: log)
        let deadline = started + UInt64(launch.readyTimeoutMilliseconds) * 1_000_000
        var ready: UInt64?
        while ready == nil, MonotonicClock.now() < deadline {
            if let message = notify.receive(milliseconds: 100) {
                if message.text.split(separator: "\n").contains("READY=1") { ready = message.nanoseconds }
            } else if let ended = Subprocess.wait(for: pid, milliseconds: 0) {
                stopped = true
                throw BenchError("navhostd ended before READY=1 (\(ended)); its log is \(logPath)")
            }
        }
        guard let ready else {
            for descendant in Subprocess.descendants(of: pid) { kill(descendant, SIGKILL) }
            Subprocess.terminate(pid, graceMilliseconds: 0)
            stopped = true
            throw BenchError("navhostd did not say READY=1 in time; its log is \(logPath)")
        }
        startNanoseconds = ready - started
        daemonPID = launch.wrapper.isEmpty ? pid : Self.daemon(startedBy: pid)
    }

    /// The process named `navhostd` among `wrapper`'s descendants, or `wrapper` itself when there is none (a wrapper
    /// such as valgrind runs the daemon in its own process).
    private static func daemon(startedBy wrapper: pid_t) -> pid_t {
        let named = Subprocess.descendants(of: wrapper).first { descendant in
            readFile("/proc/\(descendant)/comm")?.split(separator: "\n").first == "navhostd"
        }
        return named ?? wrapper
    }

    deinit {
        stop()
    }

    /// The daemon's resident memory in KiB, from `/proc/<pid>/status`: all of it (`VmRSS`), its own allocations
    /// (`RssAnon`), and pages of files it maps, mostly shared libraries' code (`RssFile`).
    func residentMemory() throws -> (total: Int, anonymous: Int, file: Int) {
        guard let status = readFile("/proc/\(daemonPID)/status") else {
            throw BenchError("cannot read /proc/\(daemonPID)/status")
        }
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix("\(name):") } ?? ""
            return Int(line.filter(\.isNumber)) ?? 0
        }
        return (field("VmRSS"), field("RssAnon"), field("RssFile"))
    }

    /// The daemon's resident set size in KiB (`VmRSS` of `/proc/<pid>/status`).
    func residentKilobytes() throws -> Int {
        let file = fopen("/proc/\(daemonPID)/status", "r")
        guard let file else { throw BenchError.system("fopen(/proc/\(daemonPID)/status)") }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = string(fromCString: line)
            guard text.hasPrefix("VmRSS:") else { continue }
            let digits = text.dropFirst(6).filter(\.isNumber)
            if let kilobytes = Int(digits) { return kilobytes }
        }
        throw BenchError("no VmRSS in /proc/\(daemonPID)/status")
    }

    /// What the daemon has used so far (``ProcessUsage``).
    func usage() throws -> ProcessUsage {
        try ProcessUsage.of(daemonPID)
    }

    /// Sends `signal` to the daemon.
    func send(signal: Int32) {
        kill(daemonPID, signal)
    }

    /// Waits for a notification containing `text`; returns when it arrived, or `nil` on timeout.
    func waitForNotification(containing text: String, milliseconds: Int = 30_000) -> UInt64? {
        let deadline = MonotonicClock.now() + UInt64(milliseconds) * 1_000_000
        while MonotonicClock.now() < deadline {
            if let message = notify.receive(milliseconds: 100), message.text.contains(text) {
                return message.nanoseconds
            }
        }
        return nil
    }

    /// Stops the daemon with SIGTERM (SIGKILL after ``Launch/stopGraceMilliseconds``) and waits for it.
    ///
    /// Under a wrapper (`--daemon-wrapper`), `pid` is the wrapper's: the processes it started are told first, since
    /// one that traces the daemon (`strace -f`) detaches on SIGTERM and leaves the daemon running.
    func stop() {
        guard !stopped else { return }
        stopped = true
        for descendant in Subprocess.descendants(of: pid) { kill(descendant, SIGTERM) }
        Subprocess.terminate(pid, graceMilliseconds: stopGraceMilliseconds)
    }
}
