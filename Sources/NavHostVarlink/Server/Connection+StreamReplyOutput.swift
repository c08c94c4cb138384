internal import NIOCore
internal import Synchronization

extension Connection {
    /// Writes the replies with `continues` of the connection's running `more` call, from the call's own task.
    ///
    /// A stream reply does not pass through the connection's state machine: its handler's task hands it to the
    /// channel itself.
    ///
    /// The connection's order of writes holds because of the state machine's rules: a `more` call runs alone, so
    /// while it runs the connection writes nothing; every earlier reply was written before the call started; and its
    /// final reply is written by the connection once its handler has returned. The connection lets through the
    /// replies of the call the state machine runs as a stream (``accept(_:)``), and of no other: a reply after the
    /// call finished or the connection closed is refused with `CancellationError`.
    ///
    /// Back pressure: on the channel's event loop a reply goes straight to the channel while it is writable;
    /// otherwise, and from any other thread, the handler waits until the reply is on the socket, so it suspends
    /// while the client does not read. A handler never has more than one reply queued here, and it gives the event
    /// loop back at least every ``writesPerYield`` replies.
    ///
    /// On the event loop a reply is written from inside the pipeline, not from its tail: the handlers after the
    /// connection have no part in writes, and passing them costs about 1,700 instructions a reply — a fifth of a
    /// watcher's share of a state change. It starts where the connection's own replies start, in front of the
    /// server's frame handler, which only passes writes on (``Connection/writingContext(from:)``).
    final class StreamReplyOutput: Sendable {
        private let channel: any Channel
        /// The channel's event loop, asked once here rather than of the channel at every reply.
        private let eventLoop: any EventLoop
        /// The context replies are written from (``Connection/writingContext(from:)``) while the connection is in the
        /// pipeline; `nil` once it was removed.
        private let context: LoopContext
        /// The value of the call whose replies are let through, or `-1`.
        private let acceptedCall = Atomic<Int>(-1)
        /// Replies written straight to the channel since the writer last gave the event loop back.
        private let writesSinceYield = Atomic<Int>(0)
        /// How many replies a handler may write straight to the channel before it gives the event loop back.
        static let writesPerYield = 16

        /// Creates the output of the connection whose context is `context`; replies are written from `writer`.
        init(context: ChannelHandlerContext, writingFrom writer: ChannelHandlerContext) {
            self.channel = context.channel
            self.eventLoop = context.eventLoop
            self.context = LoopContext(writer)
        }

        /// Lets go of the connection's context: the handler was removed (it holds the handler, and the handler holds
        /// this output). Writes on the event loop are refused from then on. Called on the event loop.
        func detach() {
            eventLoop.preconditionInEventLoop()
            context.value = nil
        }

        /// Lets the replies of `call` through, and no other's; `nil` refuses every reply.
        func accept(_ call: StateMachine.CallID?) {
            acceptedCall.store(call?.value ?? -1, ordering: .releasing)
        }

        /// Writes one prepared reply of `call` if that needs no waiting: on the channel's event loop, while the
        /// channel is active and writable and `call` is the running stream call. Returns `false`, having written
        /// nothing, otherwise.
        ///
        /// The caller is not the call's task (a watched session, telling its watchers on the main actor, which shares
        /// the loop's thread in `navhostd`), so it may write only while the call's task waits for its next reply:
        /// ``VarlinkReplyWriter/sendImmediately(_:)`` says who may call it.
        func writeImmediately(_ reply: VarlinkPreparedReply, of call: StateMachine.CallID) -> Bool {
            guard acceptedCall.load(ordering: .acquiring) == call.value, eventLoop.inEventLoop,
                channel.isActive, channel.isWritable, let context = context.value
            else { return false }
            context.writeAndFlush(reply.outboundMessage, promise: nil)
            return true
        }

        /// Writes one serialized reply of `call`.
        ///
        /// - Throws: `CancellationError` when the reply is refused or the connection is gone.
        func write(_ bytes: ByteBuffer, of call: StateMachine.CallID) async throws {
            guard acceptedCall.load(ordering: .acquiring) == call.value else { throw CancellationError() }
            if eventLoop.inEventLoop {
                guard channel.isActive, let context = context.value else { throw CancellationError() }
                if channel.isWritable {
                    context.writeAndFlush(NIOAny(bytes), promise: nil)
                    // Give the event loop back now and then: a handler that sends in a tight loop would otherwise hold
                    // the loop's thread for as long as its client keeps up, and neither this connection's shutdown
                    // nor the loop's other connections would run. (A handler that waits for what it sends, like a
                    // watcher, gives it back anyway.)
                    if writesSinceYield.add(1, ordering: .relaxed).newValue >= Self.writesPerYield {
                        writesSinceYield.store(0, ordering: .relaxed)
                        await Task.yield()
                    }
                    return
                }
            }
            do {
                try await channel.writeAndFlush(bytes).get()
            } catch {
                throw CancellationError()
            }
        }
    }
}

// MARK: - The context on the loop

extension Connection.StreamReplyOutput {
    /// The context replies are written from, for the event loop's thread only. Unlike `NIOLoopBoundBox` it does not
    /// check the thread on each access, and its value is read and written without the runtime's exclusivity check:
    /// every access is on the loop, after the output checked it is there (``writeImmediately(_:of:)`` and
    /// ``write(_:of:)`` ask `inEventLoop` first, ``detach()`` is called from the handler's removal), so one thread at
    /// a time touches it. Nothing here asserts it: touch `value` only after `eventLoop.inEventLoop`. The two checks
    /// cost a watcher's write about 100 instructions.
    fileprivate final class LoopContext: @unchecked Sendable {
        @exclusivity(unchecked) var value: ChannelHandlerContext?

        init(_ value: ChannelHandlerContext) {
            self.value = value
        }
    }
}
