import Glibc

/// The text of a NUL-terminated C string held in an array.
func string(fromCString buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A failure of the benchmark itself (not a slow result): what went wrong, in words.
struct BenchError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// An error naming a failed system call and `errno`.
    static func system(_ call: String) -> BenchError {
        BenchError("\(call) failed: \(String(cString: strerror(errno)))")
    }
}

/// Starts child processes with `posix_spawnp`, without Foundation, so the benchmark stays one thread and its CPU
/// affinity (inherited by every child) is exactly what it sets.
enum Subprocess {
    /// How a process ended.
    struct Termination: Equatable {
        /// The exit status, or `nil` when a signal ended it.
        var exitStatus: Int32?
        /// The signal that ended it, if any.
        var signal: Int32?

        var succeeded: Bool { exitStatus == 0 }
    }

    /// The environment of this process as `NAME=value` strings.
    static var currentEnvironment: [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return result
    }

    /// Starts `arguments[0]` (looked up in `PATH` when it has no slash) and returns its process ID.
    ///
    /// - Parameters:
    ///   - arguments: The program and its arguments.
    ///   - environment: The child's whole environment; this process's when `nil`.
    ///   - output: The descriptor that becomes the child's stdout and stderr; `/dev/null` when `nil`.
    static func spawn(_ arguments: [String], environment: [String: String]? = nil, output: Int32? = nil) throws
        -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let pairs = (environment ?? currentEnvironment).map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer { for entry in envp { free(entry) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard status == 0 else {
            throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Runs a program to its end and returns what it wrote to stdout and stderr.
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (Termination, String) {
        let finished = try runMeasuringCPU(arguments, environment: environment)
        return (finished.termination, finished.output)
    }

    /// A program run to its end by ``runMeasuringCPU(_:environment:)``.
    struct Finished {
        var termination: Termination
        /// What it wrote to stdout and stderr.
        var output: String
        /// The CPU time (user and system) of the program and of every process it started and waited for.
        var cpuNanoseconds: UInt64
    }

    /// Runs a program to its end, like ``run(_:environment:)``, and says how much CPU it and the children it waited
    /// for used (`wait4`'s resource usage).
    static func runMeasuringCPU(_ arguments: [String], environment: [String: String]? = nil) throws -> Finished {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchError.system("pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let pid: pid_t
        do {
            pid = try spawn(arguments, environment: environment, output: ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        var collected: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = read(ends[0], &chunk, chunk.count)
            if count > 0 {
                collected += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(ends[0])
        var usage = rusage()
        let termination = wait(for: pid, usage: &usage)
        return Finished(
            termination: termination,
            output: String(decoding: collected, as: UTF8.self),
            cpuNanoseconds: nanoseconds(of: usage.ru_utime) + nanoseconds(of: usage.ru_stime)
        )
    }

    /// Waits for `pid` to end.
    static func wait(for pid: pid_t) -> Termination {
        var usage = rusage()
        return wait(for: pid, usage: &usage)
    }

    /// Waits for `pid` to end, and fills `usage` with the resources it and the children it waited for used
    /// (`wait4`); `usage` stays as it was when the wait fails.
    static func wait(for pid: pid_t, usage: inout rusage) -> Termination {
        var status: Int32 = 0
        while wait4(pid, &status, 0, &usage) < 0 {
            if errno != EINTR { return Termination(exitStatus: nil, signal: nil) }
        }
        return termination(from: status)
    }

    /// Waits up to `milliseconds` for `pid` to end; `nil` if it is still running.
    static func wait(for pid: pid_t, milliseconds: Int) -> Termination? {
        let deadline = MonotonicClock.now() + UInt64(milliseconds) * 1_000_000
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return termination(from: status) }
            if result < 0, errno != EINTR { return Termination(exitStatus: nil, signal: nil) }
            if MonotonicClock.now() >= deadline { return nil }
            MonotonicClock.sleep(milliseconds: 5)
        }
    }

    /// The thread IDs of `pid`, from `/proc/<pid>/task`; empty when it has ended.
    static func threads(of pid: pid_t) -> [String] {
        guard let tasks = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(tasks) }
        var threads: [String] = []
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.first?.isNumber == true { threads.append(name) }
        }
        return threads
    }

    /// The processes `pid` started, and theirs, from `/proc/<pid>/task/<tid>/children`; empty when the kernel does not
    /// list them.
    static func descendants(of pid: pid_t) -> [pid_t] {
        let children = threads(of: pid).flatMap { thread -> [pid_t] in
            let list = readFile("/proc/\(pid)/task/\(thread)/children") ?? ""
            return list.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
        }
        return children + children.flatMap { descendants(of: $0) }
    }

    /// Stops `pid` with SIGTERM, or at once with SIGKILL when `grace` is 0, and waits for it; SIGKILL follows when
    /// it has not ended `grace` milliseconds after SIGTERM.
    static func terminate(_ pid: pid_t, graceMilliseconds grace: Int = 10_000) {
        if grace > 0 {
            kill(pid, SIGTERM)
            if wait(for: pid, milliseconds: grace) != nil { return }
        }
        kill(pid, SIGKILL)
        _ = wait(for: pid)
    }

    private static func nanoseconds(of time: timeval) -> UInt64 {
        let seconds = UInt64(time.tv_sec)
        let microseconds = UInt64(time.tv_usec)
        return seconds * 1_000_000_000 + microseconds * 1000
    }

    private static func termination(from status: Int32) -> Termination {
        let signal = status & 0x7f
        if signal == 0 { return Termination(exitStatus: (status >> 8) & 0xff, signal: nil) }
        return Termination(exitStatus: nil, signal: signal)
    }
}
