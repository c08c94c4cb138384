import Glibc

/// Where log lines should go: journald's native protocol, or standard error with `<N>` prefixes.
public enum LogDestination: Sendable, Hashable {
    /// journald, through ``JournaldLogHandler``.
    case journal
    /// Standard error, through ``StderrLogHandler``.
    case standardError
}

/// Decides whether this process logs to journald or to standard error.
///
/// In order:
/// 1. `JOURNAL_STREAM` (`device:inode`, set by systemd for a service whose output goes to the journal) names the
///    file standard error is: journald. Comparing with `fstat(2)` matters: a child whose standard error was
///    redirected inherits the variable but not the stream.
/// 2. Standard error is a terminal: standard error, because a person is watching.
/// 3. journald's socket accepts a connection: journald.
/// 4. Otherwise standard error.
public enum JournalDetection {
    // MARK: - Public Functions

    /// The destination for this process, following the rules above.
    ///
    /// - Parameters:
    ///   - journalStream: The `JOURNAL_STREAM` value; by default this process's.
    ///   - standardError: The descriptor to compare; standard error unless a test passes another.
    ///   - journalSocketPath: journald's native-protocol socket.
    /// - Returns: Where to log.
    public static func destination(
        journalStream: String? = environmentValue("JOURNAL_STREAM"),
        standardError: Int32 = 2,
        journalSocketPath: String = JournalSocket.defaultPath
    ) -> LogDestination {
        if isJournalStream(journalStream, fileDescriptor: standardError) { return .journal }
        if isatty(standardError) == 1 { return .standardError }
        if isJournalReachable(at: journalSocketPath) { return .journal }
        return .standardError
    }

    /// Whether `journalStream` (a `JOURNAL_STREAM` value, `device:inode` in decimal) names the file open at
    /// `fileDescriptor`.
    ///
    /// - Parameters:
    ///   - journalStream: The variable's value, or `nil` when it is unset.
    ///   - fileDescriptor: The descriptor to compare, usually standard error.
    /// - Returns: `true` when device and inode both match.
    public static func isJournalStream(_ journalStream: String?, fileDescriptor: Int32) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// Whether a journald-like datagram socket accepts a connection at `path`.
    ///
    /// - Parameter path: The socket path.
    /// - Returns: `true` when `connect(2)` succeeds, so something is bound there and listening.
    public static func isJournalReachable(at path: String) -> Bool {
        guard let address = UnixSocketAddress(path: path) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return address.withSocketAddress { connect(descriptor, $0, $1) } == 0
    }

    /// The value of environment variable `name` in this process, or `nil`.
    ///
    /// - Parameter name: The variable's name.
    public static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
