public import NavHostJSON

/// Sends the replies of a `more` call before its final one.
///
/// A streaming handler gets a writer and calls ``send(_:)`` for each reply that has `continues`; the value the
/// handler returns is the final reply, without `continues`.
///
/// ## Back pressure
/// ``send(_:)`` returns only once the reply has been handed to the connection's outbound buffer, and that buffer stops
/// taking data while the socket is not writable (NIO's write-buffer high water mark, 64 KiB by default). A handler that
/// produces faster than its client reads is therefore suspended in `send`; it never has more than one reply queued in
/// the layer. When the connection closes or the server shuts down, `send` throws `CancellationError`.
///
/// ## Calls without `more`
/// A call without `more` (a `oneway` call included) cannot take intermediate replies: `send` throws
/// `org.varlink.service.ExpectedMore`, which ends the call with that error unless the handler catches it. A handler
/// that serves both kinds checks ``isStreaming``.
public struct VarlinkReplyWriter: Sendable {
    private let sink: @Sendable (JSONObject) async throws -> Void
    private let preparedSink: (@Sendable (VarlinkPreparedReply) async throws -> Void)?
    /// Where ``sendImmediately(_:)`` writes, and the call whose replies it writes: the connection's stream output
    /// itself, not a closure that calls it, whose context was retained and released and whose thunk was called for
    /// every watcher of every change.
    private let immediateOutput: (output: Connection.StreamReplyOutput, call: Connection.StateMachine.CallID)?
    private let call: VarlinkCall

    /// Creates a writer that hands each reply to `sink`; the server makes these, tests may too.
    public init(call: VarlinkCall, sink: @escaping @Sendable (JSONObject) async throws -> Void) {
        self.call = call
        self.sink = sink
        self.preparedSink = nil
        self.immediateOutput = nil
    }

    /// Creates a writer whose prepared replies go to `preparedSink` as they are, already serialized, and straight to
    /// `output` as replies of `streamCall` when they are sent with ``sendImmediately(_:)``.
    init(
        call: VarlinkCall,
        sink: @escaping @Sendable (JSONObject) async throws -> Void,
        preparedSink: @escaping @Sendable (VarlinkPreparedReply) async throws -> Void,
        immediateOutput output: Connection.StreamReplyOutput,
        streamCall: Connection.StateMachine.CallID
    ) {
        self.call = call
        self.sink = sink
        self.preparedSink = preparedSink
        self.immediateOutput = (output, streamCall)
    }

    /// Creates the writer of a call without `more`, whose every `send` throws before it reaches a sink: most calls, and
    /// none of them allocates the closures a streaming call's writer holds.
    init(notStreaming call: VarlinkCall) {
        precondition(!call.more, "a `more` call's writer needs its sinks")
        self.call = call
        self.sink = { _ in }
        self.preparedSink = nil
        self.immediateOutput = nil
    }

    /// Whether the call asked for several replies (`more`), so that ``send(_:)`` delivers them.
    public var isStreaming: Bool { call.more }

    /// Sends one reply with `continues`, waiting while the client is not reading.
    ///
    /// - Parameter parameters: The reply's output parameters.
    /// - Throws: `org.varlink.service.ExpectedMore` when the call did not set `more`; `CancellationError` when the
    ///   connection is gone or the server shuts down.
    public func send(_ parameters: JSONObject) async throws {
        guard call.more else { throw VarlinkError.expectedMore() }
        try Task.checkCancellation()
        try await sink(parameters)
    }

    /// Sends a reply serialized beforehand (see ``VarlinkPreparedReply``), waiting while the client is not reading.
    ///
    /// - Throws: As ``send(_:)-(JSONObject)``.
    public func send(_ reply: VarlinkPreparedReply) async throws {
        guard call.more else { throw VarlinkError.expectedMore() }
        try Task.checkCancellation()
        if let preparedSink {
            try await preparedSink(reply)
        } else {
            try await sink(reply.parameters)
        }
    }

    /// Sends a reply serialized beforehand at once, if the connection can take it without waiting; returns `false`,
    /// having sent nothing, when it cannot (another thread than the connection's, a client that is not reading, a
    /// call that ended, a writer made by a test). The handler then sends it with ``send(_:)-(VarlinkPreparedReply)``.
    ///
    /// This is for code outside the handler's task that produces the handler's replies, like a watched session
    /// telling its watchers: it may call it only while the handler's task waits for that code's next update, so the
    /// order of the replies is the order they were produced in. A handler's own task uses
    /// ``send(_:)-(VarlinkPreparedReply)``.
    public func sendImmediately(_ reply: VarlinkPreparedReply) -> Bool {
        guard call.more, let immediateOutput else { return false }
        return immediateOutput.output.writeImmediately(reply, of: immediateOutput.call)
    }

    /// Encodes `value` as the output parameters and sends it as a reply with `continues`.
    public func send(_ value: some Encodable) async throws {
        try await send(try encodeOutput(value))
    }
}
