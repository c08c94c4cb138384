/// The limits and names a ``VarlinkServer`` works with.
///
/// The defaults are navhostd's (docs/robustness.md lists them with what each refuses). Every limit protects the server
/// from one client: when a client exceeds one, its connection is closed (or, for pending calls, its reading is
/// paused) and the other clients are still served.
public struct VarlinkServerConfiguration: Sendable, Hashable {
    /// The largest message accepted, in bytes, not counting the NUL terminator. Checked before parsing; a larger
    /// message closes the connection. Default: 1 MiB.
    public var maxMessageSize: Int = 1 << 20
    /// The most bytes of unfinished messages (begun, their NUL not arrived yet) the server holds for all its
    /// connections together. When they pass it, the connections that hold the most are closed, largest first, until
    /// the rest fit (``VarlinkProtocolError/Code/unfinishedMessagesOverLimit``): ``maxMessageSize`` bounds one
    /// message, this the many a client could leave unfinished on many connections. Keep it at least
    /// ``maxMessageSize``, or a lone message that large closes its connection. Default: 16 MiB.
    public var maxUnfinishedBytes: Int = 16 << 20
    /// The deepest nesting of arrays and objects in a message. Deeper closes the connection. Default: 64.
    public var maxJSONDepth: Int = 64
    /// The most connections served at once; more are closed as soon as they are accepted. Default: 4096.
    public var maxConnections: Int = 4096
    /// The most connections served at once for one user ID (from `SO_PEERCRED`). Default: 1024.
    public var maxConnectionsPerUID: Int = 1024
    /// How many of ``maxConnections`` only privileged peers may take (the server's `isPrivilegedPeer`, like the
    /// daemon's control users): however many connections other users open, these stay free for an operator.
    /// Default: 64.
    public var reservedConnections: Int = 64
    /// The most calls of one connection that are received but not yet answered. When a client pipelines more, the
    /// server stops reading from it until replies have gone out (back pressure, not an error). Default: 64.
    public var maxPendingCallsPerConnection: Int = 64
    /// How many calls of one connection run their handlers at the same time. Replies always go out in call order;
    /// with more than 1, a later call's handler may run (and finish) before an earlier one's. A `more` call always
    /// runs alone. Default: 1, so pipelined calls take effect in the order they were sent.
    public var maxConcurrentCallsPerConnection: Int = 1
    /// How long a client may take to finish a message it has started. Default: 10 seconds.
    public var partialMessageTimeout: Duration = .seconds(10)
    /// How long a client may leave its replies unread once they have backed up: when the connection stays
    /// unwritable (the socket is full and more than NIO's write-buffer high water mark, 64 KiB, waits behind it) for
    /// this long, the connection is closed. Default: 30 seconds.
    public var sendTimeout: Duration = .seconds(30)
    /// How long a connection may stay idle — no call received, running or unanswered; a running `more` call such as
    /// a Watch is not idle, nor a connection whose replies back up (``sendTimeout`` is its limit) — before the server
    /// closes it, so that clients that connect and walk away cannot hold connections for ever. `nil` for no limit.
    /// Default: 5 minutes.
    public var idleTimeout: Duration? = .seconds(300)
    /// How long a graceful shutdown waits for a connection to answer what it received and write out its replies;
    /// then the connection is closed whatever is left unsent (a client that stopped reading cannot hold the shutdown
    /// up to ``sendTimeout``). Default: 10 seconds.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// How long each event loop keeps polling its sockets after a read from a client before it sleeps, so that a
    /// client's next call, written within that time, is read without waking the loop (``BusyPoller``); `nil` never
    /// polls. The loop spends up to this much CPU after each read. Nothing polls in a process limited to one CPU.
    /// ``VarlinkServer/apply(_:)`` changes the window of a server bound with one, and cannot start polling on a server
    /// bound without. Default: `nil` (navhostd's `--busy-poll` sets 300 µs).
    public var busyPollWindow: Duration?
    /// The error name that answers a call whose handler threw an error that is not ``VarlinkErrorConvertible``.
    /// It carries no parameters, so that no internals reach the client.
    public var internalErrorName: String = "io.navhost.varlink.InternalError"
    /// The error name that ends a `more` call whose handler was cancelled because the server is shutting down.
    public var shutdownErrorName: String = "io.navhost.varlink.ServiceShuttingDown"

    /// Whether call handlers run on the main actor. Set it when the connections' event loop is the thread that runs
    /// the main actor (navhostd's): a handler's task then starts as the main actor's, in the read that brought the
    /// call, and a handler that works on the main actor reaches it without a hop; a handler set with
    /// ``VarlinkInterfaceImplementation/handleStarting(_:_:)`` runs there synchronously, without a task unless it
    /// suspends. Otherwise (the default) a handler runs on the connection's event loop, and hops to whatever actor it
    /// calls.
    public var runsHandlersOnMainActor: Bool = false

    /// Creates a configuration with the defaults.
    public init() {}
}
