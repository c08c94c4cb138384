internal import Glibc
internal import NIOCore

extension VarlinkPeerCredentials {
    /// The memory layout of Linux's `struct ucred`, which Swift does not import without `_GNU_SOURCE`.
    private struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Reads `SO_PEERCRED` from a connected `AF_UNIX` channel.
    ///
    /// NIO has no named option for it; the channel's `SocketOptionProvider` conformance runs `getsockopt` on the
    /// channel's own descriptor, on its event loop.
    ///
    /// - Returns: The credentials, or `nil` when the channel is not a socket channel or the option is unavailable.
    static func read(from channel: any Channel) -> EventLoopFuture<VarlinkPeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return future.map { VarlinkPeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) as VarlinkPeerCredentials? }
            .recover { _ in nil }
    }
}
