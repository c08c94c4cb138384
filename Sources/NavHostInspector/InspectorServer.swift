internal import Glibc
internal import HTTPTypes
internal import Hummingbird
internal import HummingbirdWebSocket
internal import Logging
internal import NIOCore
internal import NavHostClient
internal import ServiceLifecycle

// MARK: - InspectorServer

/// `navctl inspect`'s web server: the inspector page and its websocket, on loopback only, behind a token.
///
/// ```swift
/// let server = InspectorServer(socketPath: NavHostClient.defaultSocketPath())
/// try await server.run { address in print(address.url) }    // serves until the task is cancelled
/// ```
///
/// The server follows the daemon with ``NavHostClient``'s watches (the session documents with their merge patches,
/// the plugins) and pushes every change to each open page as JSON over a websocket. A page's control actions
/// (send an intent, pop) are calls this process makes on the daemon's socket, so the daemon's access control judges
/// them as it judges any client of the user who started the server.
///
/// Every request, the websocket upgrade included, must show the token (``InspectorAccess``): in the address
/// (`/?token=…`), or in the cookie the first good request sets.
public struct InspectorServer: Sendable {
    /// Where a running server listens.
    public struct Address: Sendable, Hashable {
        /// The TCP port on 127.0.0.1.
        public var port: Int
        /// The token the page's address carries.
        public var token: InspectorToken

        /// The page's address with its token, to open in a browser on this machine.
        public var url: String { "http://\(InspectorServer.host):\(port)/?token=\(token.value)" }
    }

    // MARK: - Public Properties

    /// The loopback address the server binds to; it never listens anywhere else.
    public static let host = "127.0.0.1"

    /// The daemon's socket.
    public let socketPath: String
    /// The port asked for; 0 lets the system choose a free one.
    public let port: Int
    /// The token requests must show.
    public let token: InspectorToken
    /// How many revisions the timeline keeps per session.
    public let timelineCapacity: Int

    // MARK: - Initialization

    /// A server for the daemon at `socketPath`.
    ///
    /// - Parameters:
    ///   - socketPath: The daemon's socket.
    ///   - port: The TCP port on 127.0.0.1; 0 (the default) for any free port.
    ///   - token: The token requests must show; a fresh random one by default.
    ///   - timelineCapacity: How many revisions the timeline keeps per session.
    public init(
        socketPath: String,
        port: Int = 0,
        token: InspectorToken = InspectorToken(),
        timelineCapacity: Int = 200
    ) {
        self.socketPath = socketPath
        self.port = port
        self.token = token
        self.timelineCapacity = timelineCapacity
    }

    // MARK: - Lifecycle

    /// Connects to the daemon, starts listening, calls `onListening` with the address, and serves until `stop`
    /// returns, then shuts down gracefully: the listener closes, each open page's websocket gets a close frame, and
    /// the watches end. What is still open after ``shutdownLimit`` is cancelled.
    ///
    /// - Parameters:
    ///   - stop: Returns when the server should stop (navctl: on SIGINT or SIGTERM).
    ///   - onListening: Called once the server listens, with its address.
    /// - Throws: ``NavHostClientError`` (`daemonUnreachable`) when the daemon cannot be reached at the start; the
    ///   ``PortInUse`` when the port asked for is taken; the server's error when it cannot listen otherwise. Once serving, a daemon that goes away is
    ///   shown on the page and reconnected to, not thrown.
    public func run(
        until stop: @escaping @Sendable () async -> Void,
        onListening: @escaping @Sendable (Address) async -> Void
    ) async throws {
        let hub = InspectorHub(timelineCapacity: timelineCapacity)
        let feed = InspectorDaemonFeed(socketPath: socketPath, hub: hub)
        let client = try await feed.connect()
        let application = Application(
            router: pageRouter(),
            server: InspectorUpgradeGate.serverBuilder(
                webSocketRouter: webSocketRouter(hub: hub),
                access: InspectorAccess(token: token)
            ),
            configuration: ApplicationConfiguration(address: .hostname(Self.host, port: port), serverName: nil),
            onServerRunning: { [token] channel in
                await onListening(Address(port: channel.localAddress?.port ?? 0, token: token))
            },
            logger: Self.logger
        )
        var configuration = ServiceGroupConfiguration(
            services: [application, FeedService(feed: feed, client: client, hub: hub)],
            logger: Self.logger
        )
        configuration.maximumGracefulShutdownDuration = Self.shutdownLimit
        let services = ServiceGroup(configuration: configuration)
        // Each task says whether it was the services that ended: they end on their own (an error), or after the
        // graceful shutdown `stop` triggers; waiting for `stop` ends when they do.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { [port] in
                do {
                    try await services.run()
                } catch let error as IOError where error.errnoCode == EADDRINUSE {
                    throw PortInUse(port: port)
                }
                return true
            }
            group.addTask {
                await stop()
                await services.triggerGracefulShutdown()
                return false
            }
            defer { group.cancelAll() }
            while let servicesEnded = try await group.next(), !servicesEnded {}
        }
    }

    /// How long a graceful shutdown may take before what is left is cancelled.
    public static let shutdownLimit: Duration = .seconds(5)

    /// The port asked for is taken on the loopback address.
    public struct PortInUse: Error, Sendable, Hashable {
        /// The port.
        public var port: Int
    }
}

// MARK: - FeedService

extension InspectorServer {
    /// The daemon feed as a service of the server's group: it stops following when the group shuts down, then
    /// ends every page's messages.
    private struct FeedService: Service {
        let feed: InspectorDaemonFeed
        let client: NavHostClient
        let hub: InspectorHub

        func run() async throws {
            let feed = self.feed
            let client = self.client
            await cancelWhenGracefulShutdown { await feed.run(startingWith: client) }
            await hub.finish()
        }
    }
}

// MARK: - Private Functions

private extension InspectorServer {
    /// Hummingbird's own messages: only critical ones. navctl prints what a user needs, failures to listen are
    /// thrown, and the rest is noise here: closing a connection that sent no request when the server stops (see
    /// ``InspectorUpgradeGate``) is logged as an error.
    static var logger: Logger {
        var logger = Logger(label: "navctl.inspect")
        logger.logLevel = .critical
        return logger
    }

    /// The page, behind the token.
    func pageRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: InspectorAccessMiddleware(access: InspectorAccess(token: token)))
        router.get("/") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            for (name, value) in InspectorPage.securityHeaders {
                if let name = HTTPField.Name(name) { headers[name] = value }
            }
            return Response(
                status: .ok,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: InspectorPage.html))
            )
        }
        return router
    }

    /// The websocket at `/ws`, upgraded only for a request the token admits. Any other upgrade request falls
    /// through to the page router, whose middleware answers it with 401 or 403.
    func webSocketRouter(hub: InspectorHub) -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        let access = InspectorAccess(token: token)
        let control = InspectorControl(socketPath: socketPath)
        router.ws("/ws") { request, _ in
            guard
                case .granted = access.decide(InspectorAccessMiddleware<BasicWebSocketRequestContext>.describe(request))
            else {
                return .dontUpgrade
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            let (id, messages) = await hub.subscribe()
            // Each task says whether it was the writer: when the page leaves first, writing stops; when the writer
            // ends first, its close frame ends the reading once the page answers it.
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await text in messages {
                        do { try await outbound.writeTextMessage(text) } catch { return true }
                    }
                    // The inspector stops, or the page fell too far behind: start the close handshake.
                    try? await outbound.close(.goingAway, reason: "the inspector stops or the page fell behind")
                    return true
                }
                group.addTask {
                    do {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            await hub.send(await control.handle(text), to: id)
                        }
                    } catch {
                        // The page went away mid-message.
                    }
                    return false
                }
                if await group.next() == false { group.cancelAll() }
            }
            await hub.unsubscribe(id)
        }
        return router
    }
}
