internal import Glibc
public import Logging
public import NIOCore
public import NIOPosix
internal import Synchronization

/// A Varlink server on an `AF_UNIX` stream socket.
///
/// Binding and serving are two steps, so a caller knows the socket is listening before it starts clients or tells
/// systemd it is ready:
///
/// ```swift
/// let server = try await VarlinkServer.bind(unixSocketPath: "/run/navhost/io.navhost", service: service, logger: logger)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await server.run() }
///     // … later, on SIGTERM:
///     server.shutdownGracefully()
/// }
/// ```
///
/// Each accepted connection is served by a channel handler on its event loop, and awaited by a child task of a
/// discarding task group; one connection's failure never stops the server or disturbs another connection.
///
/// ## Shutting down
/// ``shutdownGracefully()`` stops accepting connections, lets every connection answer the calls it has already
/// received, cancels running `more` calls (they end with ``VarlinkServerConfiguration/shutdownErrorName`` unless
/// their handler returns a final reply), and closes each connection once it has nothing left to write, or when
/// ``VarlinkServerConfiguration/shutdownGracePeriod`` has passed; then ``run()`` returns. Cancelling the task that runs ``run()`` instead closes everything at once.
public final class VarlinkServer: Sendable {
    /// A connection on its way from the child channel's initializer to ``serve(_:)``.
    ///
    /// A connection accepted while the listener closes can be dropped by the listener's stream before ``serve(_:)``
    /// takes it; it is then closed here, since nobody will start it.
    private final class AcceptedConnection: Sendable {
        let connection: ServedConnection
        private let taken = Atomic<Bool>(false)

        init(_ connection: ServedConnection) {
            self.connection = connection
        }

        /// Marks the connection as served; from then on closing it is the server's job.
        func take() { taken.store(true, ordering: .relaxed) }

        deinit {
            guard !taken.load(ordering: .relaxed) else { return }
            connection.channel.close(promise: nil)
        }
    }

    private let listener: NIOAsyncChannel<AcceptedConnection, Never>
    private let service: VarlinkService
    private let settings: ConfigurationCell
    private var configuration: VarlinkServerConfiguration { settings.value }
    private let logger: Logger
    private let registry: ConnectionRegistry
    /// The bytes of unfinished messages all connections hold, against ``VarlinkServerConfiguration/maxUnfinishedBytes``.
    private let unfinishedBudget: UnfinishedMessageBudget
    /// What keeps each loop polling for a while after a read (``VarlinkServerConfiguration/busyPollWindow``).
    private let busyPollers: BusyPollers
    /// The budget of "Refused a Varlink connection" lines: a client may connect in a loop.
    private let refusalLog = LogBudget()

    /// The path of the socket the server listens on, when it bound one itself.
    public let socketPath: String?
    /// The socket file as bound, removed at the end only while the path still names it.
    private let socketFile: SocketFileIdentity?

    private init(
        listener: NIOAsyncChannel<AcceptedConnection, Never>,
        socketPath: String?,
        socketFile: SocketFileIdentity?,
        service: VarlinkService,
        settings: ConfigurationCell,
        unfinishedBudget: UnfinishedMessageBudget,
        busyPollers: BusyPollers,
        isPrivilegedPeer: @escaping @Sendable (VarlinkPeerCredentials?) -> Bool,
        logger: Logger
    ) {
        self.listener = listener
        self.unfinishedBudget = unfinishedBudget
        self.busyPollers = busyPollers
        self.socketPath = socketPath
        self.socketFile = socketFile
        self.service = service
        self.settings = settings
        let configuration = settings.value
        self.logger = logger
        self.registry = ConnectionRegistry(
            maxConnections: configuration.maxConnections,
            maxConnectionsPerUID: configuration.maxConnectionsPerUID,
            reservedConnections: configuration.reservedConnections,
            isPrivileged: isPrivilegedPeer
        )
    }

    // MARK: - Binding

    /// Binds a new socket at `unixSocketPath` and starts listening.
    ///
    /// - Parameters:
    ///   - unixSocketPath: Where the socket is created.
    ///   - socketMode: The permissions set on the socket file after binding (connecting needs write permission), or
    ///     `nil` to keep what the umask gave. Default: `0o660`, owner and group.
    ///   - cleanupExistingSocketFile: Whether a socket file left at the path (by an earlier run) is removed first. A
    ///     socket a server still listens on is not: the bind throws ``SocketInUse``. The look and the bind wait for
    ///     another server's at the same path (its lock, `<path>.lock`), and throw ``SocketPathLocked`` when it takes
    ///     too long, or `CancellationError` when the task is cancelled meanwhile.
    ///   - service: The interfaces and handlers to serve.
    ///   - configuration: Limits and error names.
    ///   - isPrivilegedPeer: Whether a peer may take the connections ``VarlinkServerConfiguration/reservedConnections``
    ///     keeps free. By default nobody may.
    ///   - logger: Where the server and its connections log; library messages are at `info` level or below.
    ///   - eventLoopGroup: The event loops for the sockets: a `MultiThreadedEventLoopGroup` or one of its loops.
    /// - Returns: A server that is listening; call ``run()`` to serve.
    public static func bind(
        unixSocketPath: String,
        socketMode: UInt32? = 0o660,
        cleanupExistingSocketFile: Bool = true,
        service: VarlinkService,
        configuration: VarlinkServerConfiguration = VarlinkServerConfiguration(),
        isPrivilegedPeer: @escaping @Sendable (VarlinkPeerCredentials?) -> Bool = { _ in false },
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> VarlinkServer {
        // Bound here, not by NIO's bootstrap: NIO removes whatever socket file is at the path when it binds (a live
        // server's too) and again when the channel closes (by then perhaps another server's).
        let (descriptor, socketFile) = try await listeningSocket(
            at: unixSocketPath,
            mode: socketMode,
            removingStaleFile: cleanupExistingSocketFile,
            whileWaiting: {
                logger.notice(
                    "Waiting for the socket path's lock: another process is binding or removing the socket",
                    metadata: ["varlink.socket": "\(unixSocketPath)", "varlink.lock": "\(unixSocketPath).lock"]
                )
            }
        )
        do {
            return try await listen(
                on: descriptor,
                socketPath: unixSocketPath,
                socketFile: socketFile,
                service: service,
                configuration: configuration,
                isPrivilegedPeer: isPrivilegedPeer,
                logger: logger,
                eventLoopGroup: eventLoopGroup
            )
        } catch {
            await removeSocketFile(unixSocketPath, ifStill: socketFile)
            throw error
        }
    }

    /// Listens on a socket that is already bound and listening, like one passed by systemd socket activation.
    ///
    /// - Parameters:
    ///   - listeningSocket: The file descriptor of the listening socket. The server takes ownership of it.
    ///   - service: The interfaces and handlers to serve.
    ///   - configuration: Limits and error names.
    ///   - isPrivilegedPeer: Whether a peer may take the reserved connections.
    ///   - logger: Where the server and its connections log.
    ///   - eventLoopGroup: The event loops for the sockets: a `MultiThreadedEventLoopGroup` or one of its loops.
    /// - Returns: A server that is listening; call ``run()`` to serve.
    public static func bind(
        listeningSocket: CInt,
        service: VarlinkService,
        configuration: VarlinkServerConfiguration = VarlinkServerConfiguration(),
        isPrivilegedPeer: @escaping @Sendable (VarlinkPeerCredentials?) -> Bool = { _ in false },
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> VarlinkServer {
        try await listen(
            on: listeningSocket,
            socketPath: nil,
            socketFile: nil,
            service: service,
            configuration: configuration,
            isPrivilegedPeer: isPrivilegedPeer,
            logger: logger,
            eventLoopGroup: eventLoopGroup
        )
    }

    /// Listens on the bound socket `descriptor`, with what all the server's connections share: their settings, the
    /// budget of their unfinished messages and the loops' pollers (stopped again when listening fails).
    private static func listen(
        on descriptor: CInt,
        socketPath: String?,
        socketFile: SocketFileIdentity?,
        service: VarlinkService,
        configuration: VarlinkServerConfiguration,
        isPrivilegedPeer: @escaping @Sendable (VarlinkPeerCredentials?) -> Bool,
        logger: Logger,
        eventLoopGroup: any EventLoopGroup
    ) async throws -> VarlinkServer {
        let settings = ConfigurationCell(configuration)
        let unfinishedBudget = UnfinishedMessageBudget(limit: configuration.maxUnfinishedBytes)
        let busyPollers = await BusyPollers.start(on: eventLoopGroup, window: configuration.busyPollWindow)
        let listener: NIOAsyncChannel<AcceptedConnection, Never>
        do {
            listener = try await bootstrap(eventLoopGroup, configuration: configuration)
                .bind(
                    descriptor,
                    childChannelInitializer: initializer(
                        service: service,
                        settings: settings,
                        unfinishedBudget: unfinishedBudget,
                        busyPollers: busyPollers,
                        logger: logger
                    )
                )
        } catch {
            busyPollers.stop()
            throw error
        }
        return VarlinkServer(
            listener: listener,
            socketPath: socketPath,
            socketFile: socketFile,
            service: service,
            settings: settings,
            unfinishedBudget: unfinishedBudget,
            busyPollers: busyPollers,
            isPrivilegedPeer: isPrivilegedPeer,
            logger: logger
        )
    }

    /// How many connections may wait to be accepted, on a socket the server binds or NIO listens on.
    static let listenBacklog: Int32 = 256

    private static func bootstrap(
        _ group: any EventLoopGroup,
        configuration: VarlinkServerConfiguration
    ) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: listenBacklog)
            // Without this, a client that half-closes after writing its calls gets no replies.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
    }

    /// What each accepted socket goes through, with the configuration in force when it comes; its connections share
    /// one budget of "the client broke the protocol" lines and one of unfinished messages.
    private static func initializer(
        service: VarlinkService,
        settings: ConfigurationCell,
        unfinishedBudget: UnfinishedMessageBudget,
        busyPollers: BusyPollers,
        logger: Logger
    ) -> @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection> {
        let closingLog = LogBudget()
        return { channel in
            initialize(
                channel,
                service: service,
                configuration: settings.value,
                closingLog: closingLog,
                unfinishedBudget: unfinishedBudget,
                busyPoller: busyPollers.poller(for: channel.eventLoop),
                logger: logger
            )
        }
    }

    private static func initialize(
        _ channel: any Channel,
        service: VarlinkService,
        configuration: VarlinkServerConfiguration,
        closingLog: LogBudget,
        unfinishedBudget: UnfinishedMessageBudget,
        busyPoller: BusyPoller?,
        logger: Logger
    ) -> EventLoopFuture<AcceptedConnection> {
        VarlinkPeerCredentials.read(from: channel).flatMapThrowing { peer in
            let connection = try makeConnection(
                channel,
                service: service,
                peer: peer,
                configuration: configuration,
                closingLog: closingLog,
                unfinishedBudget: unfinishedBudget,
                busyPoller: busyPoller,
                logger: logger
            )
            return AcceptedConnection(connection)
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    // MARK: - Serving

    /// Accepts and serves connections until ``shutdownGracefully()`` has finished, or the task is cancelled.
    ///
    /// When the server bound its socket file itself, it removes the file when it stops, unless another file has
    /// taken its path since.
    public func run() async throws {
        logger.info("Varlink server listening", metadata: ["varlink.socket": "\(socketPath ?? "(inherited)")"])
        let ended: Result<Void, any Error>
        do {
            try await withThrowingDiscardingTaskGroup { group in
                try await listener.executeThenClose { inbound in
                    for try await accepted in inbound {
                        group.addTask { await self.serve(accepted) }
                    }
                }
            }
            ended = .success(())
        } catch {
            ended = .failure(error)
        }
        busyPollers.stop()
        if let socketPath { await Self.removeSocketFile(socketPath, ifStill: socketFile) }
        try ended.get()
        logger.info("Varlink server stopped")
    }

    /// Starts a graceful shutdown: stop accepting, answer what was received, end streams, close.
    ///
    /// Returns at once; ``run()`` returns when the last connection has closed.
    public func shutdownGracefully() {
        logger.info("Varlink server shutting down")
        listener.channel.close(promise: nil)
        registry.shutDown()
    }

    /// Whether the server's loops can poll after a read (``VarlinkServerConfiguration/busyPollWindow``): it was bound
    /// with a window, and may use more than one CPU. ``apply(_:)`` changes the window only then.
    public var canBusyPoll: Bool { !busyPollers.isEmpty }

    /// How long the server's loops poll after a read now; `nil` when they do not (``canBusyPoll``, and the window
    /// the last ``apply(_:)`` gave).
    public var busyPollWindow: Duration? { canBusyPoll ? configuration.busyPollWindow : nil }

    /// How many connections are being served.
    public var connectionCount: Int { registry.count }

    /// Puts `configuration` in force for the connections accepted from now on: their limits, time-outs and message
    /// bounds. The connections served already keep the ones they started with; none is closed by the change. The
    /// limit on all connections' unfinished messages is the exception: it is one for all, and counts from the next
    /// message a connection leaves unfinished.
    public func apply(_ configuration: VarlinkServerConfiguration) {
        settings.value = configuration
        unfinishedBudget.limit = configuration.maxUnfinishedBytes
        busyPollers.setWindow(configuration.busyPollWindow)
        registry.updateLimits(
            maxConnections: configuration.maxConnections,
            maxConnectionsPerUID: configuration.maxConnectionsPerUID,
            reservedConnections: configuration.reservedConnections
        )
    }

    private func serve(_ accepted: AcceptedConnection) async {
        accepted.take()
        let connection = accepted.connection
        guard let ticket = registry.admit(peer: connection.peer) else {
            refusalLog.log(
                .info,
                "Refused a Varlink connection: over the connection limits",
                metadata: [
                    "varlink.peer.uid": "\(connection.peer.map { String($0.uid) } ?? "unknown")",
                    "varlink.peer.pid": "\(connection.peer.map { String($0.pid) } ?? "unknown")",
                ],
                to: logger
            )
            try? await connection.channel.close()
            return
        }
        defer { registry.remove(ticket) }
        var logger = self.logger
        logger[metadataKey: "varlink.connection.id"] = "\(ticket.id)"
        if let peer = connection.peer {
            logger[metadataKey: "varlink.peer.uid"] = "\(peer.uid)"
            logger[metadataKey: "varlink.peer.pid"] = "\(peer.pid)"
        }
        logger.debug("Varlink connection accepted")
        let grace = Self.timeAmount(configuration.shutdownGracePeriod)
        await Self.serveConnection(connection, logger: logger) { handler in
            let channel = connection.channel
            registry.onShutdown(ticket) {
                handler()
                // Past the grace period the connection is closed, written out or not.
                channel.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
            }
        }
        logger.debug("Varlink connection closed")
    }
}

// MARK: - One connection, without a listening socket

/// A connection set up by ``VarlinkServer/makeConnection(_:service:peer:configuration:closeReason:closingLog:unfinishedBudget:logger:)``, to be
/// served by ``VarlinkServer/serveConnection(_:logger:onShutdown:)``.
package struct ServedConnection: Sendable {
    /// The connection's channel.
    package let channel: any Channel
    /// The credentials its handlers see.
    let peer: VarlinkPeerCredentials?
    let handler: NIOLoopBound<Connection>
}

extension VarlinkServer {
    /// Puts a server connection's handlers on `channel`: the send timeout (which records why it closed a connection in
    /// `closeReason`), the partial-message timeout and the NUL framing with the configured size limit, as one handler
    /// (`VarlinkServerFrameHandler`, which tells `unfinishedBudget` what it holds of an unfinished message), then the
    /// connection itself, which keeps what arrives until
    /// ``serveConnection(_:logger:onShutdown:)`` starts it.
    ///
    /// Every accepted socket goes through this; so may an in-process channel (a fuzzer's or a test's
    /// `NIOAsyncTestingChannel`), which then runs exactly the server's code from the first byte to the last reply.
    ///
    /// - Important: Call it on `channel`'s event loop, before any byte is read.
    package static func makeConnection(
        _ channel: any Channel,
        service: VarlinkService,
        peer: VarlinkPeerCredentials?,
        configuration: VarlinkServerConfiguration,
        closeReason: CloseReason = CloseReason(),
        closingLog: LogBudget = LogBudget(),
        unfinishedBudget: UnfinishedMessageBudget? = nil,
        busyPoller: BusyPoller? = nil,
        logger: Logger
    ) throws -> ServedConnection {
        let pipeline = channel.pipeline.syncOperations
        // The three as one handler: each event crosses one context, not three (`VarlinkServerFrameHandler`).
        try pipeline.addHandler(
            VarlinkServerFrameHandler(
                sendTimeout: timeAmount(configuration.sendTimeout),
                onSendTimeout: { closeReason.record($0) },
                partialMessageTimeout: timeAmount(configuration.partialMessageTimeout),
                maxMessageSize: configuration.maxMessageSize,
                unfinishedBudget: unfinishedBudget,
                busyPoller: busyPoller
            )
        )
        let connection = Connection(
            eventLoop: channel.eventLoop,
            service: service,
            peer: peer,
            configuration: configuration,
            closeReason: closeReason,
            closingLog: closingLog,
            busyPoller: busyPoller,
            logger: logger
        )
        // Last, and it must stay last: its replies are written from inside the pipeline on the loop (in front of the
        // frame handler, which only passes writes on) and its stream replies from the pipeline's tail elsewhere
        // (`StreamReplyOutput`), the same way only while no outbound handler follows it.
        try pipeline.addHandler(connection)
        return ServedConnection(
            channel: channel,
            peer: peer,
            handler: NIOLoopBound(connection, eventLoop: channel.eventLoop)
        )
    }

    /// Serves one connection made by ``makeConnection(_:service:peer:configuration:closeReason:closingLog:unfinishedBudget:logger:)`` until it
    /// has closed and its handlers have returned: parses calls, runs the connection's state machine, dispatches to
    /// the service, writes replies in order. Never throws.
    ///
    /// The server calls it for each connection it admits; an in-process driver calls it directly, outside the
    /// connection limits, which belong to the listening socket.
    ///
    /// - Parameters:
    ///   - connection: The connection.
    ///   - logger: Where the connection logs from now on.
    ///   - onShutdown: Receives the closure that starts the connection's graceful shutdown (what
    ///     ``shutdownGracefully()`` calls), once, before the first call is read.
    package static func serveConnection(
        _ connection: ServedConnection,
        logger: Logger,
        onShutdown: (@escaping @Sendable () -> Void) -> Void
    ) async {
        let eventLoop = connection.channel.eventLoop
        let handler = connection.handler
        onShutdown {
            eventLoop.execute { handler.value.shutDown() }
        }
        let finished = eventLoop.flatSubmit {
            handler.value.start(logger: logger)
            return handler.value.finished
        }
        await withTaskCancellationHandler {
            try? await finished.get()
        } onCancel: {
            connection.channel.close(promise: nil)
        }
    }
}

/// The server's configuration, which ``VarlinkServer/apply(_:)`` may replace while it runs.
private final class ConfigurationCell: Sendable {
    private let storage: Mutex<VarlinkServerConfiguration>

    init(_ configuration: VarlinkServerConfiguration) {
        storage = Mutex(configuration)
    }

    var value: VarlinkServerConfiguration {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
