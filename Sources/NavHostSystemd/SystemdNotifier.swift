import CSystemd
import Glibc

/// Tells the service manager about the daemon's state, through `sd_notify(3)`.
///
/// Under a `Type=notify` unit, systemd waits for ``Message/ready`` before it considers the service started, shows
/// ``Message/status(_:)`` texts in `systemctl status`, and expects ``Message/watchdog`` pings when `WatchdogSec=` is
/// set. With `NotifyAccess=main` it only accepts messages sent by the main process, which is why the daemon sends
/// them itself rather than through a helper.
///
/// When `NOTIFY_SOCKET` is unset (the daemon was started by hand, or by a manager that does not listen),
/// every call is a no-op that returns `false`.
///
/// ```swift
/// let notifier = SystemdNotifier()
/// try notifier.notify(.ready, .status("Listening on /run/navhost/io.navhost, 3 plugins loaded"))
/// ```
public struct SystemdNotifier: Sendable {
    // MARK: - Initialization

    /// Creates a notifier that reads `NOTIFY_SOCKET` at each call.
    public init() {}

    // MARK: - Public Properties

    /// Whether a service manager listens: `NOTIFY_SOCKET` is set in this process's environment.
    public var isEnabled: Bool {
        getenv("NOTIFY_SOCKET") != nil
    }

    // MARK: - Public Functions

    /// Sends `messages` to the service manager in one datagram.
    ///
    /// - Parameter messages: The state changes to report; systemd applies the fields of one datagram together.
    /// - Returns: `true` when the datagram was sent, `false` when `NOTIFY_SOCKET` is unset.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/notifyFailed`` when the socket refused it.
    @discardableResult
    public func notify(_ messages: Message...) throws(SystemdError) -> Bool {
        try notify(messages)
    }

    /// Sends `messages` to the service manager in one datagram.
    ///
    /// - Parameter messages: The state changes to report; systemd applies the fields of one datagram together.
    /// - Returns: `true` when the datagram was sent, `false` when `NOTIFY_SOCKET` is unset.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/notifyFailed`` when the socket refused it.
    @discardableResult
    public func notify(_ messages: [Message]) throws(SystemdError) -> Bool {
        try send(Message.wireText(of: messages), pid: 0)
    }

    /// Sends `messages` on behalf of process `pid`, through `sd_pid_notify(3)`.
    ///
    /// The kernel attaches `pid` as the sender's credentials, which needs `CAP_SYS_ADMIN` unless `pid` is this
    /// process. systemd only honours it with `NotifyAccess=all`, or `main` when `pid` is the main process.
    ///
    /// - Parameters:
    ///   - messages: The state changes to report.
    ///   - pid: The process the datagram claims to come from.
    /// - Returns: `true` when the datagram was sent, `false` when `NOTIFY_SOCKET` is unset.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/notifyFailed`` when the socket refused it.
    @discardableResult
    public func notify(_ messages: [Message], onBehalfOf pid: Int32) throws(SystemdError) -> Bool {
        try send(Message.wireText(of: messages), pid: pid)
    }
}

// MARK: - Private Functions

extension SystemdNotifier {
    private func send(_ text: String, pid: Int32) throws(SystemdError) -> Bool {
        let result = sd_pid_notify(pid, 0, text)
        if result < 0 {
            throw SystemdError(
                code: .notifyFailed,
                message: "could not notify the service manager of \(text.debugDescription)",
                systemErrorNumber: -result
            )
        }
        return result > 0
    }
}
