internal import HTTPTypes
internal import Hummingbird
internal import HummingbirdCore
internal import HummingbirdWebSocket
internal import Logging
internal import NIOCore
internal import NIOHTTP1

// MARK: - InspectorUpgradeGate

/// Turns a websocket upgrade request that ``InspectorAccess`` refuses into a plain HTTP request, so that the page
/// router's ``InspectorAccessMiddleware`` answers it with 401 or 403.
///
/// Hummingbird answers every upgrade its websocket router declines with 400 Bad Request and no reason. This handler
/// sits right after the HTTP request decoder and looks at the connection's first request only (an HTTP/1 connection
/// can upgrade only there): when it asks for an upgrade without the right token, the `Upgrade` header is taken away
/// before the upgrade handler sees it. The websocket router checks the token again, so without this handler a
/// refused upgrade is still refused, only with 400.
///
/// It also closes a connection that is still waiting for its first request when the server stops.
final class InspectorUpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let access: InspectorAccess

    init(access: InspectorAccess) {
        self.access = access
    }

    // MARK: - Lifecycle

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if head.headers.contains(name: "upgrade") {
            let request = InspectorAccess.Request(
                target: head.uri,
                cookieHeader: head.headers["cookie"].joined(separator: "; "),
                origin: head.headers.first(name: "origin"),
                host: head.headers.first(name: "host")
            )
            if case .granted = access.decide(request) {
            } else {
                head.headers.remove(name: "upgrade")
            }
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Closes a connection that has sent no request yet when the server stops: Hummingbird's handlers that close
    /// idle connections on quiescing are only added after the first request, so a connection a browser opened
    /// ahead of need (Chromium does) would otherwise hold the server open until the browser drops it.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

// MARK: - InspectorUpgradeGate.Channel

extension InspectorUpgradeGate {
    /// Hummingbird's HTTP/1 channel with websocket upgrades, with the gate added after the request decoder.
    struct Channel: ServerChildChannel {
        typealias Value = HTTP1WebSocketUpgradeChannel.Value

        let upgrading: HTTP1WebSocketUpgradeChannel
        let access: InspectorAccess

        func setup(channel: any NIOCore.Channel, logger: Logger) -> EventLoopFuture<Value> {
            upgrading.setup(channel: channel, logger: logger).flatMapThrowing { value in
                let operations = channel.pipeline.syncOperations
                let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try operations.addHandler(InspectorUpgradeGate(access: access), position: .after(decoder))
                return value
            }
        }

        /// Handles the connection; cancelling it closes the connection, since the wait for its first request
        /// does not end on cancellation by itself.
        func handle(value: Value, logger: Logger) async {
            await withTaskCancellationHandler {
                await upgrading.handle(value: value, logger: logger)
            } onCancel: {
                value.channel.close(promise: nil)
            }
        }
    }

    /// The server builder for ``Channel``, as `.http1WebSocketUpgrade(webSocketRouter:)` builds Hummingbird's own.
    static func serverBuilder<Router: HTTPResponderBuilder>(
        webSocketRouter: Router,
        access: InspectorAccess
    ) -> HTTPServerBuilder where Router.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            Channel(
                upgrading: HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    webSocketResponder: webSocketResponder,
                    configuration: .init()
                ),
                access: access
            )
        }
    }
}
