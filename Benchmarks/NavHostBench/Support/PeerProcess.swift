import Glibc

/// A peer server: the Products catalog's `Send` served by another Varlink implementation, the Python one
/// (`Benchmarks/Peer/navhost_peer.py` on the PyPI `varlink` package, run by the project's `.venv` Python) or the Go
/// one (`Benchmarks/Peer/go`, `navhost-peer-go` on github.com/varlink/go). Both take the same arguments.
///
/// It gets a socket, a state folder and a log of its own in the work folder, and is ready once its socket accepts a
/// connection: each peer binds the socket only after it has read the interface definition and the catalog.
final class PeerProcess {
    /// The peer's process ID.
    let pid: pid_t
    /// The socket clients connect to.
    let socketPath: String
    /// Where the peer's stdout and stderr go.
    let logPath: String
    /// Nanoseconds from `posix_spawn` until the socket accepted a connection.
    let startNanoseconds: UInt64
    /// The command that started it, for the results file.
    let command: [String]
    private var stopped = false

    /// How to start the peer.
    struct Launch {
        /// Who the peer is, for messages: `Python peer`, `Go peer`.
        var name: String
        /// The command before the peer's arguments: `[".venv/bin/python", "…/navhost_peer.py"]`, or the Go peer's
        /// program.
        var command: [String]
        /// The catalog file; the peer's own default (the plugin's `Resources/products.json`) when `nil`.
        var catalog: String?
        /// `NAME=ROUTE` sessions, all of them `products.list`.
        var sessions: [String]
        /// Where the socket, the state folder and the log go.
        var workDirectory: String
        /// How long to wait for the socket to accept.
        var readyTimeoutMilliseconds = 30_000
    }

    /// Starts the peer with a fresh state folder and waits until its socket accepts a connection.
    ///
    /// - Parameter name: Names its socket, state folder and log inside the work folder.
    init(_ launch: Launch, name: String) throws {
        let base = "\(launch.workDirectory)/\(name)"
        socketPath = "\(base).sock"
        logPath = "\(base).log"
        var arguments = launch.command + ["unix:\(socketPath)", "--state-dir", "\(base).state"]
        if let catalog = launch.catalog { arguments += ["--catalog", catalog] }
        for session in launch.sessions { arguments += ["--session", session] }
        command = arguments
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw BenchError.system("open(\(logPath))") }
        defer { close(log) }
        let started = MonotonicClock.now()
        pid = try Subprocess.spawn(arguments, output: log)
        let deadline = started + UInt64(launch.readyTimeoutMilliseconds) * 1_000_000
        var ready: UInt64?
        while ready == nil, MonotonicClock.now() < deadline {
            if (try? RawConnection(path: socketPath, initialCapacity: 64)) != nil {
                ready = MonotonicClock.now()
            } else if let ended = Subprocess.wait(for: pid, milliseconds: 0) {
                stopped = true
                let output = (readFile(logPath) ?? "").trimmingSuffix()
                throw BenchError(
                    "the \(launch.name) ended before its socket accepted (\(ended)); its log \(logPath):\n\(output)"
                )
            } else {
                MonotonicClock.sleep(milliseconds: 10)
            }
        }
        guard let ready else {
            Subprocess.terminate(pid, graceMilliseconds: 0)
            stopped = true
            throw BenchError("the \(launch.name)'s socket did not accept in time; its log is \(logPath)")
        }
        startNanoseconds = ready - started
    }

    deinit {
        stop()
    }

    /// The first line the peer logged: its language's and its Varlink library's versions, and its address.
    var banner: String {
        (readFile(logPath) ?? "").split(separator: "\n").first.map(String.init) ?? ""
    }

    /// Stops the peer with SIGTERM (SIGKILL after 10 s) and waits for it.
    func stop() {
        guard !stopped else { return }
        stopped = true
        Subprocess.terminate(pid)
    }
}
