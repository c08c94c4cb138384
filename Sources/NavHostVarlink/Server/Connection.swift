internal import Logging
internal import NIOCore
internal import NavHostJSON

/// Serves one accepted client connection: reads calls, runs their handlers, writes replies in order.
///
/// The rules live in ``StateMachine``; this type only moves events into it and carries out its actions. One loop
/// owns the state machine and the outbound writer, so replies are written in exactly the order it decides. A reader
/// task parses calls, and each call's handler runs in a child task; both report back to the loop through an
/// ``AsyncQueue`` of ``Event``s. The one exception are the replies with `continues` of a running `more` call, which its handler
/// writes itself through ``StreamReplyOutput``, in the window the state machine gives it.
struct Connection: Sendable {
    let id: Int
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let peer: VarlinkPeerCredentials?
    /// Why the pipeline closed the channel under a write, when it did (the send timeout).
    let closeReason: CloseReason
    let service: VarlinkService
    let configuration: VarlinkServerConfiguration
    let logger: Logger

    /// What the loop reacts to.
    enum Event: Sendable {
        case received(VarlinkCall)
        case inputEnded
        case inputFailed(any Error)
        case callFinished(StateMachine.CallID, ByteBuffer?)
        case shutdown
        /// Time to see whether the connection has been idle for ``VarlinkServerConfiguration/idleTimeout``.
        case idleCheck
        /// The replies held for a batch have waited ``ReplyBatch/maxDelay``.
        case batchDue
    }

    /// Serves the connection until it closes; never throws, so one connection cannot stop the server.
    ///
    /// - Parameter onShutdown: Registers the connection's reaction to a graceful server shutdown.
    func run(onShutdown: (@escaping @Sendable () -> Void) -> Void) async {
        do {
            try await channel.executeThenClose { inbound, outbound in
                let events = AsyncQueue<Event>()
                let permits = AsyncQueue<Void>()
                for _ in 0..<configuration.maxPendingCallsPerConnection { permits.append(()) }
                onShutdown { events.append(.shutdown) }
                let streamCancellation = CancellationSignal()
                let parser = JSONParser(maxDepth: configuration.maxJSONDepth)
                let streamOutput = StreamReplyOutput(channel: channel.channel, outbound: outbound)

                await withDiscardingTaskGroup { group in
                    group.addTask {
                        await Self.readCalls(from: inbound, permits: permits, parser: parser, events: events)
                    }
                    if let idleTimeout = configuration.idleTimeout {
                        group.addTask {
                            while (try? await Task.sleep(for: idleTimeout / 4)) != nil { events.append(.idleCheck) }
                        }
                    }
                    var machine = StateMachine(
                        maxPendingCalls: configuration.maxPendingCallsPerConnection,
                        maxConcurrentCalls: configuration.maxConcurrentCallsPerConnection
                    )
                    var lastActivity = ContinuousClock.now
                    var closesInOrder = false
                    var batch = ReplyBatch()
                    var batchDeadline: Scheduled<Void>?
                    /// Writes the batch; `false` when the connection failed under the write.
                    func writeBatch() async -> Bool {
                        batchDeadline?.cancel()
                        batchDeadline = nil
                        guard !batch.isEmpty else { return true }
                        do {
                            try await outbound.write(contentsOf: batch.take())
                            return true
                        } catch {
                            logClosing(because: error)
                            _ = machine.connectionFailed()
                            return false
                        }
                    }
                    loop: while let event = await events.next() {
                        let actions: [StateMachine.Action]
                        switch event {
                        case .received(let call):
                            lastActivity = .now
                            actions = machine.receivedCall(call)
                        case .inputEnded:
                            // The pipeline may have closed the channel (the send timeout) while no write was
                            // waiting: the input then ends first, and this is where the reason is said.
                            if let reason = closeReason.recorded {
                                logClosing(because: reason)
                            } else {
                                logger.trace("Varlink client ended its input")
                            }
                            actions = machine.inputEnded()
                        case .inputFailed(let error):
                            logClosing(because: error)
                            actions = machine.connectionFailed()
                        case .callFinished(let id, let reply):
                            lastActivity = .now
                            actions = machine.callFinished(id, reply: reply)
                        case .shutdown:
                            actions = machine.shutdownRequested()
                        case .idleCheck:
                            // Idle: no call received, running or unanswered (a Watch is a call that runs).
                            guard machine.pendingCalls == 0, let idleTimeout = configuration.idleTimeout,
                                ContinuousClock.now - lastActivity >= idleTimeout
                            else { continue loop }
                            logger.info(
                                "Closed an idle Varlink connection",
                                metadata: ["varlink.idle-timeout": "\(idleTimeout)"]
                            )
                            break loop
                        case .batchDue:
                            batchDeadline = nil
                            guard await writeBatch() else { break loop }
                            continue loop
                        }
                        // Before any action: a `more` call about to start may write as soon as its task runs.
                        streamOutput.accept(machine.runningStreamCall)
                        for action in actions {
                            switch action {
                            case .startCall(let callID, let call):
                                // A `more` call writes its replies with `continues` straight to the channel.
                                if call.more, !(await writeBatch()) { break loop }
                                group.addTask {
                                    await runCall(
                                        callID,
                                        call,
                                        events: events,
                                        streamOutput: streamOutput,
                                        streamCancellation: streamCancellation
                                    )
                                }
                            case .write(let bytes):
                                batch.append(bytes)
                            case .allowNextCall:
                                permits.append(())
                            case .cancelStream:
                                streamCancellation.fire()
                            case .close:
                                closesInOrder = await writeBatch()
                                break loop
                            }
                        }
                        // Pipelined calls: hold the replies for one write while later calls are still to answer.
                        if !batch.isEmpty {
                            if machine.pendingCalls == 0 || batch.isFull {
                                guard await writeBatch() else { break loop }
                            } else if batchDeadline == nil, !events.hasElements {
                                batchDeadline = channel.channel.eventLoop.scheduleTask(in: ReplyBatch.maxDelay) {
                                    events.append(.batchDue)
                                }
                            }
                        }
                    }
                    // Stop everything: no more stream replies, later events are refused.
                    batchDeadline?.cancel()
                    streamOutput.accept(nil)
                    events.finish()
                    permits.finish()
                    group.cancelAll()
                    if closesInOrder { await flushReplies() }
                }
            }
        } catch {
            logger.debug("A Varlink connection ended with an error", metadata: ["varlink.error": "\(error)"])
        }
    }

    /// Waits until every reply handed to the channel is on the socket, or the channel has closed.
    ///
    /// Closing the channel drops the writes it still holds, and a reply that returned from `outbound.write` (or a
    /// stream reply written straight to the channel) may still be held while the client reads slowly. An empty write
    /// completes after every write before it, so awaiting it keeps the last replies. A client that leaves them unread
    /// for the send timeout is closed, as one that stops reading while calls run (a server shutdown's grace period
    /// may close it sooner).
    private func flushReplies() async {
        let channel = self.channel.channel
        let flushed = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(ByteBuffer(), promise: flushed)
        let deadline = channel.eventLoop.scheduleTask(in: VarlinkServer.timeAmount(configuration.sendTimeout)) {
            channel.close(promise: nil)
        }
        try? await flushed.futureResult.get()
        deadline.cancel()
    }

    /// Logs why the connection is being closed: a client that broke a rule (a ``VarlinkProtocolError``, including
    /// the send timeout that failed a write) at `info`, so an operator can see which client it was; I/O errors at
    /// `debug`.
    private func logClosing(because error: any Error) {
        let cause: any Error = closeReason.recorded ?? error
        if cause is VarlinkProtocolError {
            logger.info(
                "Closed a Varlink connection: the client broke the protocol",
                metadata: ["varlink.error": "\(cause)"]
            )
        } else {
            logger.debug("Closing a Varlink connection", metadata: ["varlink.error": "\(cause)"])
        }
    }

    // MARK: - Reading

    /// Reads calls while the state machine allows, and reports each (or the end of input) as an event.
    private static func readCalls(
        from inbound: NIOAsyncChannelInboundStream<ByteBuffer>,
        permits: AsyncQueue<Void>,
        parser: JSONParser,
        events: AsyncQueue<Event>
    ) async {
        var inboundIterator = inbound.makeAsyncIterator()
        do {
            while await permits.next() != nil {
                guard let message = try await inboundIterator.next() else {
                    events.append(.inputEnded)
                    return
                }
                let call = try VarlinkCall(parsing: try parser.parseVarlinkMessage(message))
                events.append(.received(call))
            }
        } catch {
            events.append(.inputFailed(error))
        }
    }

    // MARK: - Running calls

    private func runCall(
        _ callID: StateMachine.CallID,
        _ call: VarlinkCall,
        events: AsyncQueue<Event>,
        streamOutput: StreamReplyOutput,
        streamCancellation: CancellationSignal
    ) async {
        var callLogger = self.logger
        callLogger[metadataKey: "varlink.method"] = "\(call.method)"
        callLogger[metadataKey: "varlink.call.id"] = "\(callID)"
        let logger = callLogger
        logger.trace("Varlink call started")
        let request = VarlinkRequest(call: call, peer: peer, logger: logger)
        let writer = VarlinkReplyWriter(
            call: call,
            sink: { parameters in
                let reply = VarlinkReply(parameters: parameters, continues: true)
                try await streamOutput.write(serialize(reply, logger: logger), of: callID)
            },
            preparedSink: { prepared in try await streamOutput.write(prepared.message, of: callID) },
            immediateSink: { prepared in streamOutput.writeImmediately(prepared.message, of: callID) }
        )
        let reply: VarlinkReply
        do {
            let output: JSONObject
            if call.more {
                output = try await streamCancellation.run { [service] in
                    try await service.perform(request, writer: writer)
                }
            } else {
                output = try await service.perform(request, writer: writer)
            }
            reply = VarlinkReply(parameters: output)
        } catch {
            reply = VarlinkReply(
                error: wireError(for: error, streamCancelled: streamCancellation.isFired, logger: logger)
            )
        }
        logger.trace("Varlink call finished", metadata: ["varlink.reply.error": "\(reply.error ?? "")"])
        events.append(.callFinished(callID, call.oneway ? nil : serialize(reply, logger: logger)))
    }

    /// The error reply for an error a handler threw.
    private func wireError(for error: any Error, streamCancelled: Bool, logger: Logger) -> VarlinkError {
        if let convertible = error as? any VarlinkErrorConvertible { return convertible.varlinkError }
        if error is CancellationError, streamCancelled {
            return VarlinkError(name: configuration.shutdownErrorName)
        }
        if error is CancellationError {
            // The connection is closing under the call; nobody will read the reply.
            logger.debug("A Varlink call was cancelled")
            return VarlinkError(name: configuration.internalErrorName)
        }
        logger.info(
            "A Varlink method handler threw an error that has no Varlink form",
            metadata: ["varlink.error": "\(error)", "varlink.error.type": "\(type(of: error))"]
        )
        return VarlinkError(name: configuration.internalErrorName)
    }

    /// Serializes a reply with its terminator; a reply that cannot be serialized becomes the internal error.
    private func serialize(_ reply: VarlinkReply, logger: Logger) -> ByteBuffer {
        var buffer = ByteBuffer()
        do {
            try buffer.writeVarlinkMessage(reply.jsonValue)
        } catch {
            logger.info("A Varlink reply could not be serialized", metadata: ["varlink.error": "\(error)"])
            buffer.clear()
            let fallback = VarlinkReply(error: VarlinkError(name: configuration.internalErrorName))
            _ = try? buffer.writeVarlinkMessage(fallback.jsonValue)
        }
        return buffer
    }
}
