import Foundation
import IntegrationHarness
import Synchronization

/// The built `navctl`, run as a child process the way a shell or a script runs it.
///
/// Standard output and standard error are pipes (not a terminal), the help text is laid out for 80 columns, and
/// `NAVHOST_SOCKET` comes only from the test.
enum Navctl {
    /// What one run printed, and how it ended.
    struct Run: Sendable {
        var arguments: [String]
        var status: Int32
        var output: String
        var errors: String
    }

    /// The executable under test.
    static var executable: String { TestPaths.builtExecutable("navctl") }

    /// Another user to run `navctl` as, through `setpriv` (the test must run as root).
    struct User: Sendable {
        var uid: UInt32
        var gid: UInt32

        /// `nobody`: a user the daemon lets read but not control.
        static let nobody = User(uid: 65534, gid: 65534)
    }

    /// Runs `navctl` with `arguments` to its end.
    ///
    /// - Parameters:
    ///   - arguments: The command line after `navctl`.
    ///   - environment: More environment variables.
    ///   - directory: The working directory; the test's own when `nil`.
    ///   - user: The user to run as; the test's own when `nil`.
    ///   - limit: How long it may run before it is killed and the test fails.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: String? = nil,
        as user: User? = nil,
        limit: Duration = .seconds(30)
    ) async throws -> Run {
        let process = try RunningNavctl(arguments, environment: environment, in: directory, as: user)
        return try await process.waitForExit(within: limit)
    }

    /// The environment every run gets: the test's own, with a fixed terminal width and no `NAVHOST_SOCKET`.
    static func environment(adding extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NAVHOST_SOCKET")
        environment["COLUMNS"] = "80"
        environment["LINES"] = "25"
        environment.merge(extra) { _, new in new }
        return environment
    }
}

/// A `navctl` that is still running (`navctl watch`): read its output as it comes, signal it, wait for its end.
final class RunningNavctl: Sendable {
    let arguments: [String]
    private let process: Mutex<Process>
    private let output = Collected()
    private let errors = Collected()
    private let exited: AsyncStream<Void>

    /// Starts `navctl` with `arguments`; with `standardOutput`, it writes there instead of to a pipe the test reads
    /// (``outputSoFar`` then stays empty).
    init(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: String? = nil,
        as user: Navctl.User? = nil,
        standardOutput: FileHandle? = nil
    ) throws {
        self.arguments = arguments
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", Navctl.executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Navctl.executable)
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = Navctl.environment(adding: environment)
        process.standardInput = FileHandle.nullDevice
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = standardOutput ?? outputPipe
        process.standardError = errorPipe
        let (exited, exit) = AsyncStream.makeStream(of: Void.self)
        self.exited = exited
        self.process = Mutex(process)
        process.terminationHandler = { _ in exit.finish() }
        try process.run()
        if standardOutput != nil { try outputPipe.fileHandleForWriting.close() }
        for (pipe, collected) in [(outputPipe, output), (errorPipe, errors)] {
            PipeReader.read(pipe.fileHandleForReading) { data in
                collected.append(data)
                return true
            }
        }
    }

    /// What it printed on standard output so far.
    var outputSoFar: String { output.text }

    /// Waits until standard output holds `count` lines.
    func waitForLines(_ count: Int, within limit: Duration = .seconds(30)) async throws -> [String] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let lines = outputSoFar.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if lines.count >= count { return lines.map(String.init) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TimedOut(
            what: "\(count) lines from navctl \(arguments.joined(separator: " ")); it printed:\n\(outputSoFar)"
        )
    }

    /// Sends `signal` to it.
    func send(signal: Int32) {
        kill(process.withLock { $0.processIdentifier }, signal)
    }

    /// Waits for it to end and returns everything it printed. Kills it if it outlives `limit`.
    func waitForExit(within limit: Duration = .seconds(30)) async throws -> Navctl.Run {
        let exited = self.exited
        do {
            try await withTimeout(limit, "navctl \(arguments.joined(separator: " ")) to exit") {
                for await _ in exited {}
            }
        } catch {
            send(signal: SIGKILL)
            throw error
        }
        let status = process.withLock { $0.terminationStatus }
        // The pipes may still hold the last bytes when the process has ended: read until both report their end, for
        // 30 s at most. (5 s, as it was, could run out on a loaded machine before the readers' threads ran, and the run
        // came back with its output cut short.)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, !(output.isClosed && errors.isClosed) {
            try await Task.sleep(for: .milliseconds(5))
        }
        return Navctl.Run(arguments: arguments, status: status, output: output.text, errors: errors.text)
    }

    deinit {
        process.withLock { process in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}

/// What a child printed on one pipe, and whether the pipe has reached its end.
private final class Collected: Sendable {
    private let state = Mutex((bytes: Data(), isClosed: false))

    /// Appends `data`; empty data marks the end.
    func append(_ data: Data) {
        state.withLock { state in
            if data.isEmpty { state.isClosed = true } else { state.bytes.append(data) }
        }
    }

    /// Everything so far, as UTF-8 text (decoded whole, so a character split across reads stays whole).
    var text: String { String(decoding: state.withLock { $0.bytes }, as: UTF8.self) }
    var isClosed: Bool { state.withLock { $0.isClosed } }
}
