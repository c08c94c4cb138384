internal import Synchronization

/// Why a connection's pipeline closed its channel, recorded by the handler that did it and read by the connection
/// whose write then failed (a failed write only says that the channel is closed).
package final class CloseReason: Sendable {
    private let reason = Mutex<VarlinkProtocolError?>(nil)

    package init() {}

    /// Records the reason; the first one recorded stands.
    func record(_ error: VarlinkProtocolError) {
        reason.withLock { $0 = $0 ?? error }
    }

    /// The recorded reason, if any.
    var recorded: VarlinkProtocolError? { reason.withLock { $0 } }
}
