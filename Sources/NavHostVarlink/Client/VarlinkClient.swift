internal import NIOCore
public import NIOPosix
public import NavHostJSON

/// A Varlink client connection over an `AF_UNIX` socket.
///
/// Calls may be made from many tasks at once: they are pipelined on the one connection, and each gets its own
/// reply (the service answers in call order).
///
/// ```swift
/// let client = try await VarlinkClient.connect(unixSocketPath: "/run/navhost/io.navhost")
/// let info = try await client.call("org.varlink.service.GetInfo")
/// for try await update in client.callMore("io.navhost.Navigation.Watch", parameters: ["session": "main"]) {
///     print(update)
/// }
/// try await client.close()
/// ```
///
/// An error reply is thrown as a ``VarlinkError``; a closed connection or a reply that breaks the protocol as a
/// ``VarlinkClientError``.
///
/// - Note: The replies of a `more` call are buffered until the caller reads them.
public final class VarlinkClient: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects to a Varlink service.
    ///
    /// - Parameters:
    ///   - unixSocketPath: The path of the service's socket.
    ///   - maxMessageSize: The largest reply accepted, in bytes.
    ///   - maxJSONDepth: The deepest nesting of arrays and objects accepted in a reply.
    ///   - eventLoopGroup: The event loops for the socket.
    public static func connect(
        unixSocketPath: String,
        maxMessageSize: Int = VarlinkFrameDecoder.defaultMaxMessageSize,
        maxJSONDepth: Int = JSONParser.defaultMaxDepth,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) async throws -> VarlinkClient {
        let channel = try await ClientBootstrap(group: eventLoopGroup)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        VarlinkFrameHandler(maxMessageSize: maxMessageSize),
                        VarlinkClientHandler(maxJSONDepth: maxJSONDepth)
                    )
                }
            }
            .connect(unixDomainSocketPath: unixSocketPath)
            .get()
        return VarlinkClient(channel: channel)
    }

    /// Connects, runs `body` with the client, and closes the connection however `body` ends.
    public static func withConnection<Result>(
        unixSocketPath: String,
        _ body: (VarlinkClient) async throws -> Result
    ) async throws -> Result {
        let client = try await connect(unixSocketPath: unixSocketPath)
        do {
            let result = try await body(client)
            try? await client.close()
            return result
        } catch {
            try? await client.close()
            throw error
        }
    }

    /// Calls a method and waits for its reply.
    ///
    /// - Parameters:
    ///   - method: The fully qualified method name.
    ///   - parameters: The input parameters.
    /// - Returns: The output parameters.
    /// - Throws: ``VarlinkError`` for an error reply, ``VarlinkClientError`` when the connection fails.
    public func call(_ method: String, parameters: JSONObject = [:]) async throws -> JSONObject {
        let promise = channel.eventLoop.makePromise(of: VarlinkReply.self)
        let message = try Self.serialize(VarlinkCall(method: method, parameters: parameters))
        channel.writeAndFlush(
            VarlinkClientHandler.OutboundCall(message: message, responder: .single(promise)),
            promise: Self.failing(promise)
        )
        let reply = try await promise.futureResult.get()
        if let error = reply.varlinkError { throw error }
        return reply.parameters
    }

    /// Calls a method with `Codable` parameters and output.
    public func call<Output: Decodable>(
        _ method: String,
        parameters: some Encodable,
        as output: Output.Type
    ) async throws -> Output {
        let encoded = try JSONValueEncoder().encode(parameters)
        let reply = try await call(method, parameters: encoded.objectValue ?? [:])
        return try JSONValueDecoder().decode(output, from: .object(reply))
    }

    /// Calls a method with `more` and returns its replies as they arrive.
    ///
    /// The sequence ends after the reply without `continues`, and throws ``VarlinkError`` when the call ends with an
    /// error reply.
    public func callMore(_ method: String, parameters: JSONObject = [:]) -> VarlinkReplySequence {
        let (replies, continuation) = AsyncThrowingStream.makeStream(of: VarlinkReply.self)
        do {
            let message = try Self.serialize(VarlinkCall(method: method, parameters: parameters, more: true))
            let written = channel.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenFailure { _ in continuation.finish(throwing: Self.notWritten) }
            channel.writeAndFlush(
                VarlinkClientHandler.OutboundCall(message: message, responder: .stream(continuation)),
                promise: written
            )
        } catch {
            continuation.finish(throwing: error)
        }
        return VarlinkReplySequence(replies: replies)
    }

    /// Calls a method with `oneway`: the service sends no reply. Returns once the call has been written.
    public func oneway(_ method: String, parameters: JSONObject = [:]) async throws {
        let message = try Self.serialize(VarlinkCall(method: method, parameters: parameters, oneway: true))
        try await channel.writeAndFlush(VarlinkClientHandler.OutboundCall(message: message, responder: nil))
    }

    /// Closes the connection; calls still waiting fail with ``VarlinkClientError/Code/connectionClosed``.
    public func close() async throws {
        try await channel.close()
    }

    /// What a call that never reached the socket fails with: the connection was closed before it was written.
    private static let notWritten = VarlinkClientError(
        code: .connectionClosed,
        message: "the connection closed before the call was written"
    )

    /// A write promise that fails `reply` when the call cannot be written (the channel is closed), which the
    /// handler, never reached, would not do: without it the caller would wait forever.
    private static func failing(_ reply: EventLoopPromise<VarlinkReply>) -> EventLoopPromise<Void> {
        let written = reply.futureResult.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { _ in reply.fail(notWritten) }
        return written
    }

    private static func serialize(_ call: VarlinkCall) throws(JSONError) -> ByteBuffer {
        var buffer = ByteBuffer()
        try buffer.writeVarlinkMessage(call.jsonValue)
        return buffer
    }
}
