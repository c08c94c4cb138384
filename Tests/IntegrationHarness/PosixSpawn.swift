import Foundation

/// Starts a program with `posix_spawn`, handing it exactly the descriptors the caller names and no other.
///
/// Every process a test starts by hand goes through here (``SpawnedProcess``, ``ChildProcess``, ``DaemonProcess``,
/// the inspector's Chromium). What the child inherits matters in a parallel run: Foundation's `Process` learns that
/// its child ended when the last copy of a socket the child holds closes, and that socket is open in the test process,
/// without close-on-exec, for a moment while another test starts a program. A child spawned in that moment that keeps
/// the copy (a long-lived connection holder, a browser) hides the other child's exit until it ends itself; a daemon
/// killed by its test then looks alive for as long. Closing every descriptor from 3 up in the child removes the
/// chance. The child also starts with no signal blocked or ignored (``startingSignals()``).
package enum PosixSpawn {
    /// What a descriptor of the child is.
    package enum Descriptor {
        /// A copy of the test process's descriptor.
        case duplicate(Int32)
        /// `path`, opened with `flags` (and `mode`, when created).
        case file(String, flags: Int32, mode: UInt32 = 0o644)
    }

    /// A program that could not be started.
    package struct Failed: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts `executable` with `arguments` and `environment` (the whole of it: nothing else is inherited).
    ///
    /// - Parameter descriptors: The child's descriptors by number; standard input is `/dev/null` unless named. Files
    ///   are opened first, then copies made in ascending order of their number, so a copy may name a descriptor an
    ///   earlier entry set up (`[1: .file(log…), 2: .duplicate(1)]`). A source that is a named number means that
    ///   entry; one that names a later copy is refused, as the copy would not be made yet. Nothing else stays open in
    ///   the child.
    /// - Parameter workingDirectory: The directory the child starts in; the test process's own when `nil`. Files named
    ///   by a relative path in `descriptors` are opened there.
    /// - Returns: The child's process ID; the caller waits for it.
    package static func start(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        descriptors: [Int32: Descriptor],
        workingDirectory: String? = nil
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var wanted = descriptors
        if wanted[0] == nil { wanted[0] = .file("/dev/null", flags: O_RDONLY) }
        let ordered = wanted.sorted { $0.key < $1.key }
        for (number, descriptor) in ordered {
            if case .duplicate(let source) = descriptor, source > number, case .duplicate = wanted[source] {
                throw Failed(description: "descriptor \(source) is copied to \(number) before it is made")
            }
        }
        // The posix_spawn_file_actions functions return the error; they do not set errno.
        func check(_ result: Int32, _ what: String) throws {
            guard result == 0 else { throw Failed(description: "\(what): \(String(cString: strerror(result)))") }
        }
        if let workingDirectory {
            try check(addChangeDirectory(&actions, workingDirectory), "chdir \(workingDirectory)")
        }
        for (number, descriptor) in ordered {
            guard case .file(let path, let flags, let mode) = descriptor else { continue }
            try check(posix_spawn_file_actions_addopen(&actions, number, path, flags, mode), "open \(path)")
        }
        for (number, descriptor) in ordered {
            guard case .duplicate(let source) = descriptor else { continue }
            try check(posix_spawn_file_actions_adddup2(&actions, source, number), "dup2 \(source) to \(number)")
        }
        // Every number up to the last named one is named or closed; from there on, all are closed.
        let last = max(2, ordered.last?.key ?? 2)
        for number in stride(from: 3, through: last, by: 1) where wanted[number] == nil {
            try check(posix_spawn_file_actions_addclose(&actions, number), "close \(number)")
        }
        try check(addCloseFrom(&actions, last + 1), "posix_spawn_file_actions_addclosefrom_np")
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var attributes = try startingSignals()
        defer { posix_spawnattr_destroy(&attributes) }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw Failed(description: "posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Spawn attributes that start the child with no signal blocked and every signal at its default action, as
    /// systemd or a shell starts a program.
    ///
    /// Without them the child would inherit the spawning thread's mask, and every thread of the test process blocks
    /// most signals: libdispatch blocks them on its workers (the cooperative pool among them), and a thread inherits
    /// the mask of the one that made it. A child started so ignores `SIGTERM` and `SIGINT` for good (a Python program
    /// that is sent `SIGTERM` goes on to its own end), and a daemon would run with a mask it never has in service.
    private static func startingSignals() throws -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        let flags = Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        for (result, what) in [
            (posix_spawnattr_setsigmask(&attributes, &none), "posix_spawnattr_setsigmask"),
            (posix_spawnattr_setsigdefault(&attributes, &all), "posix_spawnattr_setsigdefault"),
            (posix_spawnattr_setflags(&attributes, flags), "posix_spawnattr_setflags"),
        ] where result != 0 {
            posix_spawnattr_destroy(&attributes)
            throw Failed(description: "\(what): \(String(cString: strerror(result)))")
        }
        return attributes
    }

    /// The environment of the test process without what would tell a child that it runs under systemd.
    package static var environmentWithoutSystemd: [String: String] {
        ProcessInfo.processInfo.environment.filter { key, _ in
            ![
                "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
                "JOURNAL_STREAM",
            ].contains(key)
        }
    }

    /// The exit status `waitpid` reported: the program's, or 128 plus the signal that killed it, as a shell says.
    package static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its header declares only for
    /// `_GNU_SOURCE` and so Swift's Glibc module does not show.
    private static let addCloseFrom: AddCloseFrom = unsafeBitCast(
        glibcFunction("posix_spawn_file_actions_addclosefrom_np", since: "2.34"),
        to: AddCloseFrom.self
    )

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), hidden from Swift as `addclosefrom_np` is.
    private static let addChangeDirectory: AddChangeDirectory = unsafeBitCast(
        glibcFunction("posix_spawn_file_actions_addchdir_np", since: "2.29"),
        to: AddChangeDirectory.self
    )

    private static func glibcFunction(_ name: String, since version: String) -> UnsafeMutableRawPointer {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("\(name) is missing: glibc \(version) or later is needed")
        }
        return symbol
    }
}
