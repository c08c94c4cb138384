import Foundation

/// A process a test starts, with its standard output and error on pipes the test reads line by line.
final class ChildProcess {
    private let process = Process()
    private let output = Pipe()
    private let errorOutput = Pipe()

    /// How long a line read waits before the test gives up: only a failing test ever waits this long.
    static let patience: Duration = .seconds(30)

    /// Starts `executable` with `arguments`, in the test's environment without any systemd variables, plus
    /// `environment`.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        var inherited = ProcessInfo.processInfo.environment.filter { key, _ in
            !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]
                .contains(key) && key != "JOURNAL_STREAM"
        }
        inherited.merge(environment) { _, new in new }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = inherited
        process.standardOutput = output
        process.standardError = errorOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var pid: Int32 { process.processIdentifier }

    func send(_ signalNumber: Int32) {
        kill(process.processIdentifier, signalNumber)
    }

    /// Waits for the process to end and returns its exit status.
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The next line of standard output, or `nil` at its end (or after ``patience``).
    func readOutputLine() -> String? { Self.readLine(from: output.fileHandleForReading.fileDescriptor) }

    /// The next line of standard error, or `nil` at its end (or after ``patience``).
    func readErrorLine() -> String? { Self.readLine(from: errorOutput.fileHandleForReading.fileDescriptor) }

    /// Everything left on standard output.
    func remainingOutput() -> String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    private static func readLine(from descriptor: Int32) -> String? {
        var line: [UInt8] = []
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(patience.components.seconds * 1000)) > 0 else { return nil }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count <= 0 { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }
}
