import Foundation

/// Starts a program with `posix_spawn`, handing it exactly the descriptors the caller names and no other.
///
/// Every process a test starts by hand goes through here (``SpawnedProcess``, ``DaemonProcess``, the inspector's
/// Chromium). What the child inherits matters in a parallel run: Foundation's `Process` learns that its child ended
/// when the last copy of a socket the child holds closes, and that socket is open in the test process, without
/// close-on-exec, for a moment while another test starts a program. A child spawned in that moment that keeps the copy
/// (a long-lived connection holder, a browser) hides the other child's exit until it ends itself; a daemon killed
/// by its test then looks alive for as long. Closing every descriptor from 3 up in the child removes the chance.
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
    ///   earlier entry set up (`[1: .file(log…), 2: .duplicate(1)]`). Nothing else stays open in the child.
    /// - Returns: The child's process ID; the caller waits for it.
    package static func start(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        descriptors: [Int32: Descriptor]
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var wanted = descriptors
        if wanted[0] == nil { wanted[0] = .file("/dev/null", flags: O_RDONLY) }
        for (number, descriptor) in wanted.sorted(by: { $0.key < $1.key }) {
            switch descriptor {
            case .file(let path, let flags, let mode):
                posix_spawn_file_actions_addopen(&actions, number, path, flags, mode)
            case .duplicate:
                continue
            }
        }
        for (number, descriptor) in wanted.sorted(by: { $0.key < $1.key }) {
            guard case .duplicate(let source) = descriptor else { continue }
            posix_spawn_file_actions_adddup2(&actions, source, number)
        }
        let firstUnnamed = (wanted.keys.max() ?? 2) + 1
        guard addCloseFrom(&actions, max(3, firstUnnamed)) == 0 else {
            throw Failed(description: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(errno)))")
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw Failed(description: "posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        return pid
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

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its header declares only for
    /// `_GNU_SOURCE` and so Swift's Glibc module does not show.
    private static let addCloseFrom: AddCloseFrom = {
        let name = "posix_spawn_file_actions_addclosefrom_np"
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("\(name) is missing: glibc 2.34 or later is needed")
        }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()
}
