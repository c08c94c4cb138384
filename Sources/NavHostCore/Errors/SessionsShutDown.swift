/// The daemon is stopping: its sessions are closed (``SessionRegistry/shutDown()``), and no session opens or closes in
/// this process any more.
///
/// A call that would open or close one is refused with it, whenever it reaches the registry: a call read before the
/// stop may start after the sessions were closed, and opening a session then would replace the record of the open
/// one of that name (its acknowledged stack) with a new root. The Varlink layer answers it as the server's shutdown
/// error, `io.navhost.varlink.ServiceShuttingDown`: the client calls again once the daemon is back.
public struct SessionsShutDown: Error, Sendable, Hashable, CustomStringConvertible {
    public init() {}

    public var description: String { "the daemon is stopping: no session opens or closes any more" }
}
