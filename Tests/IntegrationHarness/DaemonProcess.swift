import Foundation
import Synchronization

/// The real `navhostd`, started as a child process for an integration test.
///
/// Each daemon gets its own socket, state directory and notification socket. ``start(…)`` returns once the daemon
/// has said `READY=1`; every `sd_notify` message it sends is kept in ``notifications``.
package final class DaemonProcess: Sendable {
    /// The socket clients connect to.
    package let socketPath: String
    /// The daemon's state directory.
    package let stateDirectory: String
    /// The directory of staged plugins it loads.
    package let pluginDirectory: String
    /// The arguments it was started with, so ``restart()`` starts the same daemon again.
    private let arguments: [String]
    private let environment: [String: String]
    /// The command that runs navhostd with its arguments after it (`prlimit --fsize=…`); none when empty.
    private let launcher: [String]
    private let running: Mutex<Running>
    private let logPath: String

    private struct Running {
        var process: SpawnedProcess
        var notify: NotifySocket
        var notifications: [String] = []
    }

    /// The staged example plugins the build produces.
    package static var examplePlugins: String { TestPaths.stagedPlugins }

    /// Starts a daemon and waits for `READY=1`.
    ///
    /// - Parameters:
    ///   - plugins: The staged plugin directory.
    ///   - stateDirectory: The state directory; a fresh one when `nil`.
    ///   - sessions: `NAME=ROUTE` sessions; the daemon's default (`main=home.main`) when empty.
    ///   - extraArguments: More command-line arguments.
    ///   - environment: More environment variables.
    ///   - waitingForReady: Whether to wait for `READY=1`; a test of a daemon that never gets ready passes `false`.
    ///   - launcher: A command that runs navhostd, given its path and arguments after its own (`prlimit`, `taskset`).
    package static func start(
        plugins: String = DaemonProcess.examplePlugins,
        stateDirectory: String? = nil,
        sessions: [String] = [],
        extraArguments: [String] = [],
        environment: [String: String] = [:],
        waitingForReady: Bool = true,
        launcher: [String] = []
    ) async throws -> DaemonProcess {
        let directory = try TestPaths.temporaryDirectory()
        let socket = TestPaths.socketPath()
        var arguments = [
            "--socket", socket, "--plugins", plugins, "--state-dir", stateDirectory ?? "\(directory)/state",
        ]
        for session in sessions { arguments += ["--session", session] }
        // No configuration file unless the test gives one: /etc/navhost/navhostd.conf of the machine stays out.
        if !extraArguments.contains("--config") { arguments += ["--config", "/dev/null"] }
        arguments += extraArguments
        let daemon = try DaemonProcess(
            socketPath: socket,
            stateDirectory: stateDirectory ?? "\(directory)/state",
            pluginDirectory: plugins,
            arguments: arguments,
            environment: environment,
            launcher: launcher,
            logPath: "\(directory)/navhostd.log"
        )
        if waitingForReady { try await daemon.waitFor("READY=1") }
        return daemon
    }

    private init(
        socketPath: String,
        stateDirectory: String,
        pluginDirectory: String,
        arguments: [String],
        environment: [String: String],
        launcher: [String],
        logPath: String
    ) throws {
        self.socketPath = socketPath
        self.stateDirectory = stateDirectory
        self.pluginDirectory = pluginDirectory
        self.arguments = arguments
        self.environment = environment
        self.launcher = launcher
        self.logPath = logPath
        self.running = Mutex(
            try Self.launch(launcher: launcher, arguments: arguments, environment: environment, logPath: logPath)
        )
    }

    private static func launch(
        launcher: [String],
        arguments: [String],
        environment: [String: String],
        logPath: String
    ) throws -> Running {
        let notify = try NotifySocket(path: TestPaths.socketPath() + ".notify")
        var processEnvironment = ["NOTIFY_SOCKET": notify.path]
        processEnvironment.merge(environment) { _, new in new }
        // Appended to: the log runs on across restarts.
        let navhostd = TestPaths.builtExecutable("navhostd")
        let process = try SpawnedProcess(
            launcher.first ?? navhostd,
            launcher.isEmpty ? arguments : launcher.dropFirst() + [navhostd] + arguments,
            environment: processEnvironment,
            output: .file(logPath)
        )
        return Running(process: process, notify: notify)
    }

    /// The daemon's process ID.
    package var pid: Int32 { running.withLock { $0.process.pid } }

    /// Whether the daemon's process is still running.
    package var isRunning: Bool { running.withLock { $0.process.isRunning } }

    /// The daemon's resident memory in KiB (`VmRSS` of `/proc/PID/status`), or `nil` once it is gone.
    package var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.dropFirst("VmRSS:".count).split(whereSeparator: \.isWhitespace).first ?? "") }
    }

    /// How many file descriptors the daemon has open (the entries of `/proc/PID/fd`), or `nil` once it is gone.
    package var openDescriptors: Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// Every `sd_notify` message received so far, oldest first.
    package var notifications: [String] { running.withLock { $0.notifications } }

    /// What the daemon wrote to stdout and stderr (its log) so far, across restarts.
    package var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Waits until the daemon's log (its stdout and stderr) contains `text`; throws ``TimedOut`` after `limit`.
    package func waitForLog(_ text: String, within limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while !log.contains(text) {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: "\"\(text)\" in navhostd's log:\n\(log)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until a notification containing `text` arrives (or already did, after `after` messages).
    @discardableResult
    package func waitFor(_ text: String, after count: Int = 0, within limit: Duration = .seconds(30)) async throws
        -> String
    {
        let deadline = ContinuousClock.now + limit
        var seen = count
        while ContinuousClock.now < deadline {
            let (messages, notify, alive) = running.withLock {
                ($0.notifications, $0.notify, $0.process.isRunning)
            }
            if let match = messages.dropFirst(seen).first(where: { $0.contains(text) }) { return match }
            seen = max(seen, messages.count)
            if let message = await Self.receive(from: notify, milliseconds: 100) {
                running.withLock { $0.notifications.append(message) }
            } else if !alive {
                throw TimedOut(what: "\"\(text)\" from navhostd, which exited; its log:\n\(log)")
            }
        }
        throw TimedOut(what: "\"\(text)\" from navhostd; its log:\n\(log)")
    }

    /// Every notification that arrives within `window` from now, oldest first, by the kernel's arrival stamps (a
    /// test that reads late still counts what arrived in time, and not what came before or after); all it reads are
    /// added to ``notifications``.
    package func notifications(arrivingWithin window: Duration) async -> [String] {
        let notify = running.withLock { $0.notify }
        let start = NotifySocket.now
        let end = start + window
        let (earlier, received) = await offThePool { () -> ([String], [String]) in
            var earlier: [String] = []
            var received: [String] = []
            while true {
                let remaining = (end - NotifySocket.now) / .milliseconds(1)
                let milliseconds = Int32(max(0, min(100, remaining.rounded(.up))))
                guard let next = notify.receiveMessage(milliseconds: milliseconds, peeking: true) else {
                    if remaining <= 0 { return (earlier, received) }
                    continue
                }
                // One that arrived after the window stays queued for whoever reads next.
                guard next.arrival < end else { return (earlier, received) }
                guard let message = notify.receiveMessage(milliseconds: 0) else { continue }
                if message.arrival < start {
                    earlier.append(message.text)
                } else {
                    received.append(message.text)
                }
            }
        }
        running.withLock { $0.notifications.append(contentsOf: earlier + received) }
        return received
    }

    /// The arrival stamps of the next `count` notifications that read `text`, by the kernel's clock: a test that reads
    /// them late still sees them as far apart as they arrived. All it reads is added to ``notifications``.
    ///
    /// - Throws: ``TimedOut`` when fewer than `count` arrive within `limit`.
    package func arrivals(of text: String, count: Int, within limit: Duration = .seconds(30)) async throws -> [Duration]
    {
        let notify = running.withLock { $0.notify }
        let deadline = NotifySocket.now + limit
        let (read, stamps) = await offThePool { () -> ([String], [Duration]) in
            var read: [String] = []
            var stamps: [Duration] = []
            while stamps.count < count, NotifySocket.now < deadline {
                guard let message = notify.receiveMessage(milliseconds: 100) else { continue }
                read.append(message.text)
                if message.text == text { stamps.append(message.arrival) }
            }
            return (read, stamps)
        }
        running.withLock { $0.notifications.append(contentsOf: read) }
        guard stamps.count == count else {
            throw TimedOut(what: "\(count) \"\(text)\" from navhostd (\(stamps.count) came); its log:\n\(log)")
        }
        return stamps
    }

    /// Waits for a datagram on a thread of its own: blocking the few threads of Swift's cooperative pool would stall
    /// every other test running at the same time.
    private static func receive(from notify: NotifySocket, milliseconds: Int32) async -> String? {
        await offThePool { notify.receive(milliseconds: milliseconds) }
    }

    /// Sends `signal` to the daemon.
    package func send(signal: Int32) {
        kill(pid, signal)
    }

    /// Stops the daemon with SIGTERM and returns its exit status.
    @discardableResult
    package func terminate(within limit: Duration = .seconds(30)) async throws -> Int32 {
        send(signal: SIGTERM)
        return try await waitForExit(within: limit)
    }

    /// Kills the daemon with SIGKILL, as a crash would, and waits until it is gone.
    package func crash() async throws {
        send(signal: SIGKILL)
        _ = try await waitForExit(within: .seconds(30))
    }

    /// Starts the same daemon again (same socket, state and plugins) after it stopped, and waits for `READY=1`.
    package func restart() async throws {
        let fresh = try Self.launch(
            launcher: launcher,
            arguments: arguments,
            environment: environment,
            logPath: logPath
        )
        running.withLock { $0 = fresh }
        try await waitFor("READY=1")
    }

    /// Waits for the process to end and returns its exit status.
    package func waitForExit(within limit: Duration) async throws -> Int32 {
        let process = running.withLock { $0.process }
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(what: "navhostd (\(process.pid)) to exit; its log:\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return await process.waitForExit()
    }
}
