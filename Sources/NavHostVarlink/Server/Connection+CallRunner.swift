internal import Logging
internal import NIOCore
internal import NavHostJSON

extension Connection {
    /// Runs one call's handler and serializes its final reply: everything about a call that is not the connection's
    /// order of events.
    ///
    /// It is `Sendable` and holds nothing of the connection's state, so a call's task carries it and the connection
    /// stays on its event loop. A class: every call's task holds it with one reference, not a copy of its members.
    final class CallRunner: Sendable {
        let service: VarlinkService
        let peer: VarlinkPeerCredentials?
        let configuration: VarlinkServerConfiguration
        let logger: Logger
        let streamOutput: StreamReplyOutput
        let streamCancellation: CancellationSignal
        /// The method of the last call ``start(_:_:)`` looked up, with its route: a client calls one method many times
        /// (pipelined `Send`s), and that name, shared by ``VarlinkCallReader``, compares equal by its storage's identity
        /// at once, where hashing it for the service's table costs about 590 instructions a call. The service is a value this runner keeps, so
        /// a route found once stays the route.
        @MainActor private var lastStartingRoute: (method: String, route: MethodRoute?)?

        init(
            service: VarlinkService,
            peer: VarlinkPeerCredentials?,
            configuration: VarlinkServerConfiguration,
            logger: Logger,
            streamOutput: StreamReplyOutput,
            streamCancellation: CancellationSignal
        ) {
            self.service = service
            self.peer = peer
            self.configuration = configuration
            self.logger = logger
            self.streamOutput = streamOutput
            self.streamCancellation = streamCancellation
        }

        /// Runs the call on the caller's isolation; returns its serialized final reply, `nil` for a `oneway` call.
        nonisolated(nonsending) func run(_ callID: StateMachine.CallID, _ call: VarlinkCall) async -> ByteBuffer? {
            let request = self.request(callID, call)
            let writer =
                call.more ? streamWriter(callID, call, request: request) : VarlinkReplyWriter(notStreaming: call)
            let output: Result<VarlinkOutput, any Error>
            do {
                if call.more {
                    output = .success(
                        try await streamCancellation.run { [service] in
                            try await service.perform(request, writer: writer)
                        }
                    )
                } else {
                    output = .success(try await service.perform(request, writer: writer))
                }
            } catch {
                output = .failure(error)
            }
            return finalReply(output, request: request)
        }

        /// What ``start(_:_:)`` got to.
        enum Start: Sendable {
            /// The call finished: its serialized final reply, `nil` for a `oneway` call.
            case finished(ByteBuffer?)
            /// The call finished with these output parameters, not yet serialized: the connection writes them where
            /// the reply goes (its batch, when the reply goes out at once). Never for a `oneway` call.
            case finishedWith(VarlinkSerializedParameters)
            /// The call's handler suspended: this finishes it, in a task, and returns its final reply.
            case suspended(@MainActor @Sendable () async -> ByteBuffer?)
        }

        /// Starts a call whose handler starts on the main actor without a task
        /// (``VarlinkInterfaceImplementation/handleStarting(_:_:)``), in the caller's stretch; `nil` for a call of
        /// any other method, which ``run(_:_:)`` runs in a task.
        @MainActor
        func start(_ callID: StateMachine.CallID, _ call: VarlinkCall) -> Start? {
            guard let route = startingRoute(for: call) else { return nil }
            let request = self.request(callID, call)
            let started: VarlinkCallStart
            do {
                started = try service.start(request, on: route)
            } catch {
                return .finished(finalReply(.failure(error), request: request))
            }
            switch started {
            case .finished(let parameters):
                logFinished(request, error: nil)
                return call.oneway ? .finished(nil) : .finishedWith(parameters)
            case .suspended(let rest):
                return .suspended { [self] in
                    do {
                        return finalReply(.success(.serialized(try await rest())), request: request)
                    } catch {
                        return finalReply(.failure(error), request: request)
                    }
                }
            }
        }

        /// ``VarlinkService/startingRoute(for:)``, by way of ``lastStartingRoute``.
        @MainActor
        private func startingRoute(for call: VarlinkCall) -> MethodRoute? {
            if call.more { return nil }
            if let last = lastStartingRoute, last.method == call.method { return last.route }
            let route = service.startingRoute(for: call)
            lastStartingRoute = (call.method, route)
            return route
        }

        /// The call as its handler sees it; logs its start when tracing.
        private func request(_ callID: StateMachine.CallID, _ call: VarlinkCall) -> VarlinkRequest {
            // The call's metadata is added to a logger only where one is used: most calls never log.
            var request = VarlinkRequest(call: call, peer: peer, connectionLogger: logger, callNumber: callID.value)
            // Asked once per call: each look at the level copies the logger's handler out of its existential.
            request.isTraced = logger.logLevel <= .trace
            if request.isTraced { request.logger.trace("Varlink call started") }
            return request
        }

        /// The serialized final reply of a call whose handler ended with `output`; `nil` for a `oneway` call.
        private func finalReply(_ output: Result<VarlinkOutput, any Error>, request: VarlinkRequest) -> ByteBuffer? {
            let reply: VarlinkReply
            switch output {
            case .success(.object(let parameters)):
                reply = VarlinkReply(parameters: parameters)
            case .success(.serialized(let parameters)):
                return serializedReply(parameters, request: request)
            case .failure(let error):
                reply = VarlinkReply(
                    error: wireError(for: error, streamCancelled: streamCancellation.isFired, request: request)
                )
            }
            logFinished(request, error: reply.error)
            if request.call.oneway { return nil }
            return Self.serialize(reply, configuration: configuration, request: request)
        }

        /// The final reply of a call whose handler wrote its parameters as text: written as they are, with no reply
        /// object (nor its empty `JSONObject`); `nil` for a `oneway` call. Called directly for a call that finished
        /// in its first stretch (most `Send`s), which then makes no `Result` to take apart.
        private func serializedReply(
            _ parameters: VarlinkSerializedParameters,
            request: VarlinkRequest
        ) -> ByteBuffer? {
            logFinished(request, error: nil)
            if request.call.oneway { return nil }
            return Self.serialized(parameters)
        }

        /// The final reply with `parameters`, in a buffer of its own.
        static func serialized(_ parameters: VarlinkSerializedParameters) -> ByteBuffer {
            var buffer = ByteBufferAllocator().buffer(capacity: parameters.text.count + 16)
            buffer.writeVarlinkReply(parameters)
            return buffer
        }

        /// Logs the end of a call whose start was traced.
        private func logFinished(_ request: VarlinkRequest, error: String?) {
            if request.isTraced {
                request.logger.trace("Varlink call finished", metadata: ["varlink.reply.error": "\(error ?? "")"])
            }
        }

        /// The writer of a `more` call's replies with `continues`: each goes to the connection as it comes.
        private func streamWriter(
            _ callID: StateMachine.CallID,
            _ call: VarlinkCall,
            request: VarlinkRequest
        ) -> VarlinkReplyWriter {
            let streamOutput = self.streamOutput
            return VarlinkReplyWriter(
                call: call,
                sink: { [configuration] parameters in
                    let reply = VarlinkReply(parameters: parameters, continues: true)
                    try await streamOutput.write(
                        Self.serialize(reply, configuration: configuration, request: request),
                        of: callID
                    )
                },
                preparedSink: { prepared in try await streamOutput.write(prepared.message, of: callID) },
                immediateOutput: streamOutput,
                streamCall: callID
            )
        }

        /// The error reply for an error a handler threw.
        private func wireError(for error: any Error, streamCancelled: Bool, request: VarlinkRequest) -> VarlinkError {
            if let convertible = error as? any VarlinkErrorConvertible { return convertible.varlinkError }
            if error is CancellationError, streamCancelled {
                return VarlinkError(name: configuration.shutdownErrorName)
            }
            if error is CancellationError {
                // The connection is closing under the call; nobody will read the reply.
                request.logger.debug("A Varlink call was cancelled")
                return VarlinkError(name: configuration.internalErrorName)
            }
            request.logger.info(
                "A Varlink method handler threw an error that has no Varlink form",
                metadata: ["varlink.error": "\(error)", "varlink.error.type": "\(type(of: error))"]
            )
            return VarlinkError(name: configuration.internalErrorName)
        }

        /// Serializes a reply with its terminator; a reply that cannot be serialized becomes the internal error.
        private static func serialize(
            _ reply: VarlinkReply,
            configuration: VarlinkServerConfiguration,
            request: VarlinkRequest
        ) -> ByteBuffer {
            var buffer = ByteBuffer()
            do {
                try buffer.writeVarlinkReply(reply)
            } catch {
                request.logger.info("A Varlink reply could not be serialized", metadata: ["varlink.error": "\(error)"])
                buffer.clear()
                let fallback = VarlinkReply(error: VarlinkError(name: configuration.internalErrorName))
                _ = try? buffer.writeVarlinkReply(fallback)
            }
            return buffer
        }
    }
}
