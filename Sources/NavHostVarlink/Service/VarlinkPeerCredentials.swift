/// Who is on the other end of a connection, as the kernel saw it when the peer connected (`SO_PEERCRED`).
///
/// The credentials belong to the connection, not to a message: they identify the process that called `connect()`,
/// and cannot be spoofed by the peer. An access-control layer decides per method from them.
public struct VarlinkPeerCredentials: Sendable, Hashable {
    /// The peer's process ID at the time it connected. Process IDs are reused: do not act on the process by it.
    public var pid: Int32
    /// The peer's user ID.
    public var uid: UInt32
    /// The peer's group ID.
    public var gid: UInt32

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}
