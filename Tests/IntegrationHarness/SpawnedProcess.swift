import Foundation
import Synchronization

/// A process a test starts with `posix_spawn`, with its standard output and error on pipes the test reads line by
/// line, and every blocking wait on a thread of its own.
///
/// Foundation's `Process` is not used here on purpose. Its monitor thread learns that a child ended when a socket
/// the child inherited closes, and then calls a blocking `waitpid` for it; a child that closes the descriptors it
/// inherited without exiting (`systemd-socket-activate` does, while it waits for its first client) holds that thread,
/// and with it the end of every other `Process` in the test run, until it exits. In a parallel run that was the stall:
/// two tests blocked in `waitUntilExit` on the cooperative pool's two threads, waiting for the monitor thread, which
/// waited for an activator whose client was a third test that had no thread left to run on.
package final class SpawnedProcess: @unchecked Sendable {
    /// A program that could not be started.
    package struct SpawnFailed: Error, CustomStringConvertible {
        package var description: String
    }

    /// How long a line read waits before the test gives up: only a failing test ever waits this long.
    package static let patience: Duration = .seconds(30)

    /// The process ID.
    package let pid: Int32
    private let output: Int32
    private let errorOutput: Int32
    private let exit = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`, in the test's environment without any systemd variables, plus
    /// `environment`; standard input is `/dev/null`.
    package init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        var inherited = ProcessInfo.processInfo.environment.filter { key, _ in
            !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]
                .contains(key) && key != "JOURNAL_STREAM"
        }
        inherited.merge(environment) { _, new in new }
        var outputPipe: [Int32] = [0, 0]
        var errorPipe: [Int32] = [0, 0]
        guard pipe(&outputPipe) == 0, pipe(&errorPipe) == 0 else {
            throw SpawnFailed(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Close-on-exec, so that no other child inherits them; dup2 onto 1 and 2 clears the flag for this one.
        for descriptor in outputPipe + errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = inherited.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(outputPipe[1])
        close(errorPipe[1])
        guard result == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw SpawnFailed(description: "posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.output = outputPipe[0]
        self.errorOutput = errorPipe[0]
    }

    deinit {
        if exit.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(output)
        close(errorOutput)
    }

    /// Sends `signalNumber` to the process.
    package func send(_ signalNumber: Int32) {
        kill(pid, signalNumber)
    }

    /// Waits for the process to end: its exit status, or 128 plus the signal that killed it.
    package func waitForExit() async -> Int32 {
        if let known = exit.withLock({ $0 }) { return known }
        let pid = self.pid
        let status = await offThePool {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
        exit.withLock { $0 = status }
        return status
    }

    /// The next line of standard output, or `nil` at its end (or after ``patience``).
    package func readOutputLine() async -> String? {
        let descriptor = output
        return await offThePool { Self.readLine(from: descriptor) }
    }

    /// The next line of standard error, or `nil` at its end (or after ``patience``).
    package func readErrorLine() async -> String? {
        let descriptor = errorOutput
        return await offThePool { Self.readLine(from: descriptor) }
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

/// Runs `work`, which blocks (a `poll`, a `waitpid`), on a thread of its own and waits for it without holding a thread
/// of the cooperative pool.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread per core. A test that blocks one of them
/// for seconds starves every other test running beside it; on a two-core machine two such tests stop the whole
/// parallel run. Every blocking wait in the tests goes through here.
package func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// ``offThePool(_:)`` for work that cannot fail.
package func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
