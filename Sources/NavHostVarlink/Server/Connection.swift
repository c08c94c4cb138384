internal import Logging
internal import NIOCore
internal import NavHostJSON
@_spi(MainActorUtilities) import _Concurrency

/// Serves one accepted client connection, as a channel handler on the connection's event loop: reads calls, runs
/// their handlers, writes replies in order.
///
/// The rules live in ``StateMachine``; this type moves events into it and carries out its actions. Everything
/// happens on the event loop, in the pipeline's own callbacks: a call is parsed where its frame arrives, and its
/// handler starts there as an immediate task (`Task.immediate`, or its main-actor form), so a handler that does not
/// suspend runs to its end, reply included, before the read that brought the call returns. On navhostd's event loop,
/// which runs the main actor (``VarlinkServerConfiguration/runsHandlersOnMainActor``), that task is the main actor's,
/// and a call that touches a session never leaves the thread or waits in a queue; a handler set with
/// ``VarlinkInterfaceImplementation/handleStarting(_:_:)`` runs there without a task at all, and gets one only to
/// finish in if it suspends. A handler that does suspend finishes later; its reply comes back to the loop and takes
/// its place in the order.
///
/// Replies go out in batches: those released while one read is being handled are written together when it is over,
/// or as soon as the batch is full (``ReplyBatch/maxReplies``, ``ReplyBatch/maxBytes``), so a burst of pipelined
/// calls costs one write per batch; a reply released outside a read goes out at once when nothing else is pending,
/// otherwise as ``ReplyBatch`` says. The replies with `continues` of a running `more` call are the exception: its
/// handler writes them itself through ``StreamReplyOutput``, in the window the state machine gives it.
///
/// Replies are written from in front of the server's frame handler (``writingContext(from:)``), which only passes
/// writes on: a batch starts at the handler before it, as a stream reply does.
///
/// Back pressure: no more is read from the socket while ``VarlinkServerConfiguration/maxPendingCallsPerConnection``
/// calls are unanswered, nor while the channel is not writable (the client is not reading its replies).
final class Connection: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let configuration: VarlinkServerConfiguration
    private let closeReason: CloseReason
    /// The server's budget of "the client broke the protocol" lines, shared by its connections.
    private let closingLog: LogBudget
    private let service: VarlinkService
    private let peer: VarlinkPeerCredentials?
    private let parser: JSONParser
    private let reader: VarlinkCallReader
    private let eventLoop: any EventLoop
    private let executor: EventLoopTaskExecutor
    private let streamCancellation = CancellationSignal()
    private var logger: Logger
    private var context: ChannelHandlerContext?
    /// Where replies are written from (``writingContext(from:)``) while the connection is in the pipeline.
    private var writingContext: ChannelHandlerContext?
    private var streamOutput: StreamReplyOutput?
    /// What every call of the connection runs with; made once, when the connection starts.
    private var runner: CallRunner?

    // Exclusivity: the properties marked `@exclusivity(unchecked)` below skip the runtime's check of exclusive access
    // (`swift_beginAccess`, about 80 instructions an access; about 13 per `Send`, docs/architecture.md, session 48).
    // No two accesses to one of them can overlap: each is private to the connection, which is confined to its event
    // loop (every entry point is a channel handler's callback or runs there, as `finisher(of:)` and the scheduled
    // tasks do), and every access is a read, a whole write, or an in-place change made by the value's own
    // synchronous methods (`CallQueue`, `ReplyBatch`, a dictionary's subscript), which call no code of the
    // connection's, no handler and no plugin while the access lasts. The closures called inside such an access, the
    // events handed to the state machine (written in this file and in `CallQueue.receive(_:)`) and the look for a
    // call's entry in `StateMachine.callFinished`, touch only their `inout` arguments or compare ids; the types'
    // own documentation repeats the rule for whoever changes them. The values they release meanwhile run no code of
    // ours: frames, calls and replies are buffers and JSON values, and a task's handle of a call ends with no result.

    /// The state machine, the frames received and the calls it rules: one stored property, so that an event is one
    /// access.
    @exclusivity(unchecked) private var calls: CallQueue
    /// Whether why the connection closes has been logged: one close, one line (a partial-message timeout is followed
    /// by the framing's complaint about the message it cut short).
    private var closeLogged = false
    @exclusivity(unchecked) private var batch = ReplyBatch()
    private var batchDeadline: Scheduled<Void>?
    private var idleCheck: RepeatedTask?
    @exclusivity(unchecked) private var lastActivity = NIODeadline.now()

    private var started = false
    private var inputEnded = false
    private var inputEndTaken = false
    /// A `read` the pipeline asked for while reading was paused.
    private var readHeld = false
    /// Inside `channelRead`: replies wait for `channelReadComplete`, or for the batch to fill, so that one read's
    /// replies go out in as few writes as ``ReplyBatch`` allows.
    @exclusivity(unchecked) private var inRead = false
    @exclusivity(unchecked) private var pumping = false
    /// The tasks of the calls that are running, to cancel them when the connection closes.
    @exclusivity(unchecked) private var runningTasks: [Int: Task<Void, Never>] = [:]
    @exclusivity(unchecked) private var startingCall: Int?
    @exclusivity(unchecked) private var startingCallFinished = false
    /// The loop's poller, told of the calls whose reply the client awaits while their handler is suspended
    /// (``awaitedReplies``); `nil` when the loop does not poll.
    private let busyPoller: BusyPoller?
    /// The calls, by id, whose handler suspended before their final reply (a durable write, say): the loop polls on
    /// while any is unanswered, so that their replies go out without a wake-up of the loop. Never a `more` call (it
    /// may run for as long as the client watches) nor a `oneway` one (no reply is awaited).
    private var awaitedReplies: Set<Int> = []
    private var stopped = false
    private var channelClosed = false
    private let finishedPromise: EventLoopPromise<Void>

    /// Completes once the connection is closed and no handler of it runs any more.
    var finished: EventLoopFuture<Void> { finishedPromise.futureResult }

    init(
        eventLoop: any EventLoop,
        service: VarlinkService,
        peer: VarlinkPeerCredentials?,
        configuration: VarlinkServerConfiguration,
        closeReason: CloseReason,
        closingLog: LogBudget,
        busyPoller: BusyPoller? = nil,
        logger: Logger
    ) {
        self.eventLoop = eventLoop
        self.busyPoller = busyPoller
        self.executor = EventLoopTaskExecutor(eventLoop)
        self.service = service
        self.peer = peer
        self.configuration = configuration
        self.closeReason = closeReason
        self.closingLog = closingLog
        self.logger = logger
        self.parser = JSONParser(maxDepth: configuration.maxJSONDepth)
        self.reader = VarlinkCallReader(maxDepth: configuration.maxJSONDepth)
        self.calls = CallQueue(
            machine: StateMachine(
                maxPendingCalls: configuration.maxPendingCallsPerConnection,
                maxConcurrentCalls: configuration.maxConcurrentCallsPerConnection
            )
        )
        self.finishedPromise = eventLoop.makePromise()
    }

    // MARK: - Starting and stopping

    /// Starts serving: takes the calls received so far and reads on. Until then frames are kept and nothing is read.
    func start(logger: Logger) {
        guard !started, !stopped else { return }
        if configuration.runsHandlersOnMainActor {
            // The configuration says this event loop is the main thread: checked here, once (it traps when it is
            // not), so that each call can start its handler there without asking again (`onMainActor(_:)`).
            MainActor.preconditionIsolated("a connection whose handlers run on the main actor is served elsewhere")
        }
        started = true
        self.logger = logger
        if let streamOutput {
            runner = CallRunner(
                service: service,
                peer: peer,
                configuration: configuration,
                logger: logger,
                streamOutput: streamOutput,
                streamCancellation: streamCancellation
            )
        }
        if let idleTimeout = configuration.idleTimeout {
            let connection = NIOLoopBound(self, eventLoop: eventLoop)
            let period = VarlinkServer.timeAmount(idleTimeout / 4)
            idleCheck = eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
                connection.value.checkIdle()
            }
        }
        pump()
        releaseBatch()
        resumeReadingIfAllowed()
    }

    /// The server shuts down gracefully: answer what was received, end a running `more` call, then close.
    func shutDown() {
        handle { $0.shutdownRequested(into: &$1) }
        pump()
        releaseBatch()
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let writingContext = Self.writingContext(from: context)
        self.writingContext = writingContext
        streamOutput = StreamReplyOutput(context: context, writingFrom: writingContext)
        (writingContext.handler as? VarlinkServerFrameHandler)?.deliverMessages(to: self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A channel closed before it became active (a connect that failed) is never told `channelInactive`: the
        // pipeline going away ends the connection as well.
        channelEnded()
        // The context holds this handler: without this, the two (and the channel behind them) outlive the pipeline.
        self.context = nil
        (writingContext?.handler as? VarlinkServerFrameHandler)?.stopDeliveringMessages()
        writingContext = nil
        streamOutput?.detach()
        streamOutput = nil
        runner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        frameReceived(unwrapInboundIn(data))
    }

    /// A frame arrived: from the pipeline, or straight from the server's frame handler in front
    /// (``VarlinkServerFrameHandler/deliverMessages(to:)``), inside its `channelRead`.
    func frameReceived(_ frame: ByteBuffer) {
        calls.keep(frame)
        inRead = true
        if started { pump() }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inRead = false
        releaseBatch()
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputEnded = true
            if started {
                pump()
                releaseBatch()
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            // The client read its replies: activity, like a call.
            lastActivity = .now()
            resumeReadingIfAllowed()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logClosing(because: error)
        handle { $0.connectionFailed(into: &$1) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        channelEnded()
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        if mayRead {
            context.read()
        } else {
            readHeld = true
        }
    }

    // MARK: - Calls

    /// Starts the handler of a call; one that does not suspend has finished when this returns.
    private func start(_ id: StateMachine.CallID, _ call: VarlinkCall) {
        // A `more` call writes its replies with `continues` straight to the channel: the earlier replies go first.
        if call.more { writeBatch() }
        // That write may have failed and closed the channel under us.
        guard !stopped, let runner else { return }
        let task: Task<Void, Never>
        // Set before anything of the call runs: a close its own writes cause meanwhile must not find the connection
        // idle (`completeIfFinished`).
        startingCall = id.value
        startingCallFinished = false
        if configuration.runsHandlersOnMainActor {
            // The configuration says this event loop is the main thread, as `start(logger:)` checked. A handler that
            // starts on the main actor runs here, and needs a task only if it suspends.
            let started = Self.onMainActor { runner.start(id, call) }
            switch started {
            case .finished(let reply):
                startingCall = nil
                callFinished(id, reply: reply)
                return
            case .finishedWith(let parameters):
                startingCall = nil
                // A reply that goes out at once is written straight into the batch: no buffer of its own to make,
                // copy into the batch and free (most `Send`s). The machine then has nothing left to write for it.
                if calls.machine.writesAtOnce(id) {
                    batch.append(parameters)
                    callFinished(id, reply: nil)
                } else {
                    callFinished(id, reply: CallRunner.serialized(parameters))
                }
                return
            case .suspended, nil:
                break
            }
            let finish = finisher(of: id)
            // `startOnMainActor`, not `Task.immediate`: see `Screen.startTask` in NavHostCore (Swift 6.3.1 gives an
            // out-of-line `Task.immediate` an executor preference, and each hop in its task a lock).
            task = MainActor.assumeIsolated {
                Task.startOnMainActor {
                    if case .suspended(let rest) = started {
                        finish(await rest())
                    } else {
                        finish(await runner.run(id, call))
                    }
                }
            }
        } else {
            let finish = finisher(of: id)
            task = Task.immediate(executorPreference: executor) { finish(await runner.run(id, call)) }
        }
        startingCall = nil
        if !startingCallFinished {
            runningTasks[id.value] = task
            if let busyPoller, !call.more, !call.oneway {
                awaitedReplies.insert(id.value)
                busyPoller.noteReplyAwaited()
            }
            // The call's own writes may have closed the connection while it started.
            if stopped { task.cancel() }
        }
        completeIfFinished()
    }

    /// Runs `operation` as the main actor's without asking the runtime whether this thread runs it, as
    /// `MainActor.assumeIsolated` asks each time (through the main executor: about 400 instructions a call).
    ///
    /// - Important: Only on the event loop of a connection whose configuration runs handlers on the main actor, once
    ///   ``start(logger:)`` has checked that this loop's thread runs it: a loop's thread never changes.
    private static func onMainActor<T: Sendable>(_ operation: @MainActor () -> T) -> T {
        // Checked in debug builds (the tests' daemons): a connection driven from another thread would run main-actor
        // state there without a word. Not `assertIsolated` alone: this concurrency library's
        // `GlobalActor.assertIsolated` calls `preconditionIsolated`, so it checks in release builds too (about 600
        // instructions a call).
        #if DEBUG
            MainActor.assertIsolated("a connection whose handlers run on the main actor is served elsewhere")
        #endif
        return withoutActuallyEscaping(operation) { operation in
            unsafeBitCast(operation, to: (() -> T).self)()
        }
    }

    /// What a call's task calls with its final reply, from any thread. Made only for a call that gets a task: one that
    /// finishes where it starts is told so directly, without a closure.
    private func finisher(of id: StateMachine.CallID) -> @Sendable (ByteBuffer?) -> Void {
        let connection = NIOLoopBound(self, eventLoop: eventLoop)
        let eventLoop = self.eventLoop
        return { reply in
            if eventLoop.inEventLoop {
                connection.value.callFinished(id, reply: reply)
            } else {
                eventLoop.execute { connection.value.callFinished(id, reply: reply) }
            }
        }
    }

    private func callFinished(_ id: StateMachine.CallID, reply: ByteBuffer?) {
        if startingCall == id.value { startingCallFinished = true }
        // A call that finished where it started has no task: the look-up in an empty table is skipped.
        if !runningTasks.isEmpty { runningTasks[id.value] = nil }
        if !awaitedReplies.isEmpty, awaitedReplies.remove(id.value) != nil { busyPoller?.noteReplyGiven() }
        lastActivity = .now()
        handle { $0.callFinished(id, reply: reply, into: &$1) }
        pump()
        // Inside a read, a full batch goes out at once rather than at the read's end: the client reads and answers
        // its first replies while the read's later calls still run (``ReplyBatch/maxReplies``).
        if !inRead || batch.isFull { releaseBatch() }
        completeIfFinished()
    }

    // MARK: - The state machine's actions

    /// Tells the state machine of an event and performs the actions it asks for.
    private func handle(_ event: (inout StateMachine, inout [StateMachine.Action]) -> Void) {
        var actions: [StateMachine.Action]
        let streamCall: StateMachine.CallID?
        (actions, streamCall) = calls.take(event)
        perform(actions, streamCall: streamCall)
        calls.giveBack(&actions)
    }

    /// Carries out an event's actions (``CallQueue/take(_:)`` has queued the calls it starts already).
    private func perform(_ actions: [StateMachine.Action], streamCall: StateMachine.CallID?) {
        // Before any action: a `more` call about to start may write as soon as its task runs.
        streamOutput?.accept(streamCall)
        for action in actions {
            switch action {
            case .startCall:
                break  // queued by `CallQueue.take`; `pump` starts it
            case .write(let bytes):
                batch.append(bytes)
            case .allowNextCall:
                break  // `pump` takes the next frame; reading resumes once frames run out
            case .cancelStream:
                streamCancellation.fire()
            case .close:
                close()
            }
        }
    }

    /// Starts the calls the state machine started and takes received frames as calls, until neither is left to do.
    /// Re-entered from a call that finished inside it, it returns at once: the outer one goes on.
    private func pump() {
        guard !pumping else { return }
        pumping = true
        defer { pumping = false }
        while true {
            switch calls.next() {
            case .start(let id, let call):
                start(id, call)
            case .receive(let frame):
                receive(frame)
            case .idle(framesWaiting: false) where inputEnded && !inputEndTaken:
                inputEndTaken = true
                logger.trace("Varlink client ended its input")
                handle { $0.inputEnded(into: &$1) }
            case .idle:
                resumeReadingIfAllowed()
                return
            case .closed:
                return
            }
        }
    }

    private func receive(_ frame: ByteBuffer) {
        let call: VarlinkCall
        do {
            // The common call straight from json-c; any other message, and every one that is not a call, the general
            // way, which says what is wrong with it.
            if let read = reader.read(frame) {
                call = read
            } else {
                call = try VarlinkCall(parsing: try parser.parseVarlinkMessage(frame))
            }
        } catch {
            logClosing(because: error)
            handle { $0.connectionFailed(into: &$1) }
            return
        }
        lastActivity = .now()
        // The machine ignores a call once it stopped reading; then it must not wait in the queue either.
        guard case (var actions, let streamCall)? = calls.receive(call) else { return }
        perform(actions, streamCall: streamCall)
        calls.giveBack(&actions)
    }

    // MARK: - Reading

    private var mayRead: Bool {
        started && calls.takesMoreInput && (context?.channel.isWritable ?? false)
    }

    private func resumeReadingIfAllowed() {
        guard readHeld, mayRead, let context else { return }
        readHeld = false
        context.read()
    }

    // MARK: - Writing

    /// Writes the batch now, or arranges for it to be written, as ``ReplyBatch`` says.
    private func releaseBatch() {
        guard !batch.isEmpty, !stopped else { return }
        if calls.machine.pendingCalls == 0 || batch.isFull {
            writeBatch()
        } else if batchDeadline == nil {
            batchDeadline = eventLoop.assumeIsolated().scheduleTask(in: ReplyBatch.maxDelay) { [self] in
                batchDeadline = nil
                writeBatch()
            }
        }
    }

    private func writeBatch() {
        batchDeadline?.cancel()
        batchDeadline = nil
        // `take` answers `nil` for an empty batch: one access to it, not two.
        guard let writingContext, let replies = batch.take() else { return }
        writingContext.writeAndFlush(wrapOutboundOut(replies), promise: nil)
    }

    /// Where replies are written from: the server's frame handler's own context when it is in the pipeline, else the
    /// connection's. That handler is a duplex one only to see read requests (for its partial-message timeout), and
    /// passes writes and flushes on unchanged; written from its context, a reply starts at the handler in front of
    /// it, which saves the two hops through it, about 440 instructions a reply (docs/architecture.md). Every write
    /// goes the same way, in the order it was made.
    static func writingContext(from context: ChannelHandlerContext) -> ChannelHandlerContext {
        (try? context.pipeline.syncOperations.context(handlerType: VarlinkServerFrameHandler.self)) ?? context
    }

    // MARK: - Closing

    private func close() {
        // Closing in order (input ended, shutdown): what was released is written, then the channel closes once it
        // is on the socket. A failure drops the rest: the state machine has already.
        let inOrder = !channelClosed
        writeBatch()
        stop()
        guard let context, let writingContext, inOrder else { return }
        let channel = context.channel
        let flushed = eventLoop.makePromise(of: Void.self)
        // Closing drops the writes the channel still holds; an empty write completes after every write before it.
        writingContext.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: flushed)
        let deadline = eventLoop.scheduleTask(in: VarlinkServer.timeAmount(configuration.sendTimeout)) {
            channel.close(promise: nil)
        }
        flushed.futureResult.whenComplete { _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
    }

    /// Stops everything: no more stream replies, batches or idle checks; the running calls are cancelled.
    private func stop() {
        guard !stopped else { return }
        stopped = true
        batchDeadline?.cancel()
        batchDeadline = nil
        idleCheck?.cancel()
        idleCheck = nil
        streamOutput?.accept(nil)
        calls.removeAll()
        for task in runningTasks.values { task.cancel() }
        // No client waits for these replies any more: the loop polls for them no longer, even if their handlers
        // ignore the cancellation (``callFinished(_:reply:)`` then finds them gone).
        for _ in awaitedReplies { busyPoller?.noteReplyAbandoned() }
        awaitedReplies.removeAll()
    }

    /// The channel is closed: running calls are cancelled, and ``finished`` completes once none runs.
    private func channelEnded() {
        guard !channelClosed else { return }
        channelClosed = true
        if !calls.machine.isClosed {
            // The client went away (or the pipeline closed the channel under a write: the send timeout).
            if let reason = closeReason.recorded { logClosing(because: reason) }
            // The channel is closed already: the machine's own `close` is not acted on.
            var ignored: [StateMachine.Action] = []
            calls.machine.connectionFailed(into: &ignored)
        }
        stop()
        completeIfFinished()
    }

    private func completeIfFinished() {
        guard channelClosed, runningTasks.isEmpty, startingCall == nil else { return }
        finishedPromise.succeed()
    }

    /// Closes a connection idle for ``VarlinkServerConfiguration/idleTimeout``: no call received, running or
    /// unanswered (a Watch is a call that runs). A connection whose replies back up, or whose calls wait to be
    /// started, is not idle: the client stopped reading, and the send time-out is the limit for that
    /// (``VarlinkSendTimeoutHandler``).
    private func checkIdle() {
        guard !stopped, calls.machine.pendingCalls == 0, calls.frames.isEmpty, context?.channel.isWritable != false,
            let idleTimeout = configuration.idleTimeout,
            NIODeadline.now() - lastActivity >= VarlinkServer.timeAmount(idleTimeout)
        else { return }
        logger.info("Closed an idle Varlink connection", metadata: ["varlink.idle-timeout": "\(idleTimeout)"])
        var ignored: [StateMachine.Action] = []
        calls.machine.connectionFailed(into: &ignored)
        stop()
        context?.close(promise: nil)
    }

    /// What the client did that closes its connection, in words for the log: three rules a client that speaks the
    /// protocol well may still break (a slow reader, a stalled writer, the largest of too many unfinished messages),
    /// and the protocol itself.
    private static func fault(_ code: VarlinkProtocolError.Code) -> String {
        switch code {
        case .sendTimeout: return "the client left its replies unread too long"
        case .partialMessageTimeout: return "the client left a message unfinished too long"
        case .unfinishedMessagesOverLimit:
            return "the clients' unfinished messages went over the limit, and this client's was the largest"
        default: return "the client broke the protocol"
        }
    }

    /// Logs why the connection is being closed, once: a client that broke a rule (a ``VarlinkProtocolError``,
    /// including the send timeout that failed a write) at `info`, so an operator can see which client it was, within
    /// the server's ``LogBudget`` for such lines; I/O
    /// errors, and whatever is reported after the first reason, at `debug`.
    private func logClosing(because error: any Error) {
        let cause: any Error = closeReason.recorded ?? error
        if closeLogged {
            logger.debug("A Varlink connection being closed reported more", metadata: ["varlink.error": "\(error)"])
            return
        }
        closeLogged = true
        if let broken = cause as? VarlinkProtocolError {
            closingLog.log(
                .info,
                "Closed a Varlink connection: \(Self.fault(broken.code))",
                metadata: ["varlink.error": "\(cause)"],
                kind: broken.code.description,
                to: logger
            )
        } else {
            logger.debug("Closing a Varlink connection", metadata: ["varlink.error": "\(cause)"])
        }
    }
}
