import Foundation
import Synchronization

/// A process a test starts with `posix_spawn` (``PosixSpawn``), with its standard output and error on pipes the test
/// reads line by line (or in a file), and every blocking wait on a thread of its own.
///
/// Foundation's `Process` is not used here on purpose. Its monitor thread learns that a child ended when a socket
/// the child inherited closes, and then calls a blocking `waitpid` for it; a child that closes the descriptors it
/// inherited without exiting (`systemd-socket-activate` does, while it waits for its first client) holds that thread,
/// and with it the end of every other `Process` in the test run, until it exits. In a parallel run that was the stall:
/// two tests blocked in `waitUntilExit` on the cooperative pool's two threads, waiting for the monitor thread, which
/// waited for an activator whose client was a third test that had no thread left to run on. The daemon is started
/// here too: its end is learnt from `waitpid`, whatever another child keeps open.
package final class SpawnedProcess: @unchecked Sendable {
    /// Where the process's standard output and error go.
    package enum Output {
        /// To pipes the test reads with ``readOutputLine()`` and ``readErrorLine()``.
        case pipes
        /// Both appended to the file at this path.
        case file(String)
        /// Standard output to the file at the first path and standard error to the second, each created or emptied.
        case files(output: String, errors: String)
    }

    /// How long a line read waits before the test gives up: only a failing test ever waits this long.
    package static let patience: Duration = .seconds(30)

    /// The process ID.
    package let pid: Int32
    private let output: Int32?
    private let errorOutput: Int32?
    private let exit = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`, in the test's environment without any systemd variables, plus
    /// `environment`; standard input is `/dev/null`, and no other descriptor of the test process is inherited
    /// (``PosixSpawn``). It starts in `workingDirectory`, or in the test process's when `nil`.
    package init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        output destination: Output = .pipes,
        workingDirectory: String? = nil
    ) throws {
        var inherited = PosixSpawn.environmentWithoutSystemd
        inherited.merge(environment) { _, new in new }
        switch destination {
        case .file(let path):
            pid = try PosixSpawn.start(
                executable,
                arguments,
                environment: inherited,
                descriptors: [1: .file(path, flags: O_WRONLY | O_CREAT | O_APPEND), 2: .duplicate(1)],
                workingDirectory: workingDirectory
            )
            output = nil
            errorOutput = nil
        case .files(let outputPath, let errorsPath):
            let flags = O_WRONLY | O_CREAT | O_TRUNC
            pid = try PosixSpawn.start(
                executable,
                arguments,
                environment: inherited,
                descriptors: [1: .file(outputPath, flags: flags), 2: .file(errorsPath, flags: flags)],
                workingDirectory: workingDirectory
            )
            output = nil
            errorOutput = nil
        case .pipes:
            var outputPipe: [Int32] = [0, 0]
            var errorPipe: [Int32] = [0, 0]
            guard pipe(&outputPipe) == 0 else {
                throw PosixSpawn.Failed(description: "pipe: \(String(cString: strerror(errno)))")
            }
            guard pipe(&errorPipe) == 0 else {
                close(outputPipe[0])
                close(outputPipe[1])
                throw PosixSpawn.Failed(description: "pipe: \(String(cString: strerror(errno)))")
            }
            // Close-on-exec, so that no child Foundation starts inherits them.
            for descriptor in outputPipe + errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            defer {
                close(outputPipe[1])
                close(errorPipe[1])
            }
            do {
                pid = try PosixSpawn.start(
                    executable,
                    arguments,
                    environment: inherited,
                    descriptors: [1: .duplicate(outputPipe[1]), 2: .duplicate(errorPipe[1])],
                    workingDirectory: workingDirectory
                )
            } catch {
                close(outputPipe[0])
                close(errorPipe[0])
                throw error
            }
            output = outputPipe[0]
            errorOutput = errorPipe[0]
        }
    }

    deinit {
        if reapIfEnded() == nil {
            kill(pid, SIGKILL)
            // Reaped on a thread of its own: the last reference may go on a thread of the cooperative pool.
            let pid = self.pid
            Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }.start()
        }
        if let output { close(output) }
        if let errorOutput { close(errorOutput) }
    }

    /// Sends `signalNumber` to the process.
    package func send(_ signalNumber: Int32) {
        kill(pid, signalNumber)
    }

    /// Whether the process is still running (one that ended is reaped here).
    package var isRunning: Bool { reapIfEnded() == nil }

    /// Waits for the process to end: its exit status, or 128 plus the signal that killed it.
    package func waitForExit() async -> Int32 {
        if let known = reapIfEnded() { return known }
        let pid = self.pid
        // Waits without reaping (WNOWAIT); reaping stays in one place, under the lock.
        await offThePool {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        }
        return reapIfEnded() ?? -1
    }

    /// The exit status when the process has ended, reaping it the first time; `nil` while it runs.
    private func reapIfEnded() -> Int32? {
        exit.withLock { known in
            if let known { return known }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
            guard result == pid else { return nil }
            known = PosixSpawn.exitStatus(status)
            return known
        }
    }

    /// The next line of standard output, or `nil` at its end (or after ``patience``).
    package func readOutputLine() async -> String? {
        guard let descriptor = output else { return nil }
        return await offThePool { Self.readLine(from: descriptor) }
    }

    /// The next line of standard error, or `nil` at its end (or after ``patience``).
    package func readErrorLine() async -> String? {
        guard let descriptor = errorOutput else { return nil }
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
