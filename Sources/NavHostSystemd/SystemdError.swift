import Glibc

/// An error talking to the service manager or the journal: what failed and, for a failed system call, why.
///
/// The `code` says what kind of failure it was; new codes may be added, so switch over it with a `default`.
public struct SystemdError: Error, Sendable, Hashable {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case notifyFailed
            case invalidNotifyMessage
            case listenFDsFailed
            case notAListeningUnixSocket
            case watchdogQueryFailed
            case journalSocketFailed
            case journalSendFailed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `sd_notify(3)` could not send a state change to the service manager.
        public static let notifyFailed = Code(.notifyFailed)
        /// A notification field name or value breaks the `sd_notify` text format.
        public static let invalidNotifyMessage = Code(.invalidNotifyMessage)
        /// `sd_listen_fds_with_names(3)` refused the inherited descriptors (a malformed `LISTEN_FDS`, say).
        public static let listenFDsFailed = Code(.listenFDsFailed)
        /// The inherited descriptor with the wanted name is not a listening `AF_UNIX` stream socket.
        public static let notAListeningUnixSocket = Code(.notAListeningUnixSocket)
        /// `sd_watchdog_enabled(3)` found a malformed `WATCHDOG_USEC` or `WATCHDOG_PID`.
        public static let watchdogQueryFailed = Code(.watchdogQueryFailed)
        /// The datagram socket for the journal could not be created.
        public static let journalSocketFailed = Code(.journalSocketFailed)
        /// An entry could not be handed to the journal, neither as a datagram nor as a sealed memfd.
        public static let journalSendFailed = Code(.journalSendFailed)

        /// The code's name, like `notifyFailed`.
        public var description: String {
            switch base {
            case .notifyFailed: return "notifyFailed"
            case .invalidNotifyMessage: return "invalidNotifyMessage"
            case .listenFDsFailed: return "listenFDsFailed"
            case .notAListeningUnixSocket: return "notAListeningUnixSocket"
            case .watchdogQueryFailed: return "watchdogQueryFailed"
            case .journalSocketFailed: return "journalSocketFailed"
            case .journalSendFailed: return "journalSendFailed"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// What failed, in words a person can act on.
    public var message: String
    /// The `errno` value of the system call that failed, when one did.
    public var systemErrorNumber: Int32?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What failed, in words a person can act on.
    ///   - systemErrorNumber: The `errno` value of the failed system call, if any.
    public init(code: Code, message: String, systemErrorNumber: Int32? = nil) {
        self.code = code
        self.message = message
        self.systemErrorNumber = systemErrorNumber
    }
}

// MARK: - CustomStringConvertible

extension SystemdError: CustomStringConvertible {
    /// The error in one line: code, message and, for a failed system call, its `strerror` text.
    public var description: String {
        var text = "systemd \(code): \(message)"
        if let systemErrorNumber {
            text += " (\(String(cString: strerror(systemErrorNumber))), errno \(systemErrorNumber))"
        }
        return text
    }
}
