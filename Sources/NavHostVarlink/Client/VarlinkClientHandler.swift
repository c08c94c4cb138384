internal import NIOCore
internal import NavHostJSON

/// The client's channel handler: pairs each reply with its call, in order.
///
/// Calls are written through this handler, which queues the waiting caller in the same event-loop step as it
/// writes the message, so the queue is always in wire order however many tasks call at once.
final class VarlinkClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = OutboundCall
    typealias OutboundOut = ByteBuffer

    /// A serialized call and whoever waits for its replies (`nil` for a `oneway` call).
    struct OutboundCall {
        var message: ByteBuffer
        var responder: Responder?
    }

    /// Who waits for a call's replies.
    enum Responder {
        case single(EventLoopPromise<VarlinkReply>)
        case stream(AsyncThrowingStream<VarlinkReply, any Error>.Continuation)

        func fail(_ error: any Error) {
            switch self {
            case .single(let promise): promise.fail(error)
            case .stream(let continuation): continuation.finish(throwing: error)
            }
        }
    }

    private let parser: JSONParser
    private var waiting = CircularBuffer<Responder>()
    private var failure: (any Error)?

    init(maxJSONDepth: Int) {
        self.parser = JSONParser(maxDepth: maxJSONDepth)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let call = unwrapOutboundIn(data)
        if let failure {
            call.responder?.fail(failure)
            promise?.fail(failure)
            return
        }
        if let responder = call.responder { waiting.append(responder) }
        context.write(wrapOutboundOut(call.message), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do {
            let reply = try VarlinkReply(parsing: try parser.parseVarlinkMessage(unwrapInboundIn(data)))
            guard let responder = waiting.first else {
                throw VarlinkProtocolError(code: .unexpectedReply, message: "a reply arrived that no call asked for")
            }
            switch responder {
            case .single(let promise):
                guard !reply.continues else {
                    throw VarlinkProtocolError(
                        code: .unexpectedReply,
                        message: "a reply with \"continues\" answered a call without \"more\""
                    )
                }
                waiting.removeFirst()
                promise.succeed(reply)
            case .stream(let continuation):
                continuation.yield(reply)
                if !reply.continues {
                    waiting.removeFirst()
                    continuation.finish()
                }
            }
        } catch {
            fail(
                VarlinkClientError(code: .protocolViolation, message: "the service broke the protocol: \(error)"),
                context: context
            )
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A socket error (the service reset the connection, or closed it while a call was written) closes the
        // connection; anything else the pipeline throws is the service's bytes breaking the protocol.
        let code: VarlinkClientError.Code = error is IOError ? .connectionClosed : .protocolViolation
        fail(VarlinkClientError(code: code, message: "the connection failed: \(error)"), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(VarlinkClientError(code: .connectionClosed, message: "the connection closed"))
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            failAll(VarlinkClientError(code: .connectionClosed, message: "the service closed the connection"))
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: any Error) {
        if failure == nil { failure = error }
        while let responder = waiting.popFirst() { responder.fail(error) }
    }
}
