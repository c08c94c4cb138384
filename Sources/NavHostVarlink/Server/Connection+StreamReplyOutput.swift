internal import NIOCore
internal import Synchronization

extension Connection {
    /// Writes the replies with `continues` of the connection's running `more` call, from the call's own task.
    ///
    /// A stream reply does not pass through the connection's loop: its handler's task hands it to the channel
    /// itself. When one change goes to a thousand watchers, that saves two task switches per watcher (the hop to the
    /// loop and the acknowledgement back).
    ///
    /// The connection's order of writes is unchanged, because of the state machine's rules: a `more` call runs alone,
    /// so while it runs the loop writes nothing; every earlier reply was handed to the channel before the call
    /// started; and its final reply is written by the loop once its handler has returned. The loop lets through the
    /// replies of the call the state machine runs as a stream (``accept(_:)``), and of no other: a reply after the
    /// call finished or the connection closed is refused with `CancellationError`, as before.
    ///
    /// Back pressure is the outbound writer's: on the channel's event loop a reply goes straight to the channel while
    /// it is writable; otherwise, and from any other thread, it goes through the `NIOAsyncChannel` writer, which
    /// suspends the handler until the client reads. A handler never has more than one reply queued here, and it
    /// gives the event loop back at least every ``writesPerYield`` replies.
    final class StreamReplyOutput: Sendable {
        private let channel: any Channel
        private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        /// The value of the call whose replies are let through, or `-1`.
        private let acceptedCall = Atomic<Int>(-1)
        /// Replies written straight to the channel since the writer last gave the event loop back.
        private let writesSinceYield = Atomic<Int>(0)
        /// How many replies a handler may write straight to the channel before it gives the event loop back.
        static let writesPerYield = 16

        init(channel: any Channel, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
            self.channel = channel
            self.outbound = outbound
        }

        /// Lets the replies of `call` through, and no other's; `nil` refuses every reply.
        func accept(_ call: StateMachine.CallID?) {
            acceptedCall.store(call?.value ?? -1, ordering: .releasing)
        }

        /// Writes one serialized reply of `call` if that needs no waiting: on the channel's event loop, while the
        /// channel is active and writable and `call` is the running stream call. Returns `false`, having written
        /// nothing, otherwise.
        ///
        /// The caller is not the call's task (a watched session, telling its watchers on the main actor, which shares
        /// the loop's thread in `navhostd`), so it may write only while the call's task waits for its next reply:
        /// ``VarlinkReplyWriter/sendImmediately(_:)`` says who may call it.
        func writeImmediately(_ bytes: ByteBuffer, of call: StateMachine.CallID) -> Bool {
            guard acceptedCall.load(ordering: .acquiring) == call.value, channel.eventLoop.inEventLoop,
                channel.isActive, channel.isWritable
            else { return false }
            channel.writeAndFlush(bytes, promise: nil)
            return true
        }

        /// Writes one serialized reply of `call`.
        ///
        /// - Throws: `CancellationError` when the reply is refused or the connection is gone.
        func write(_ bytes: ByteBuffer, of call: StateMachine.CallID) async throws {
            guard acceptedCall.load(ordering: .acquiring) == call.value else { throw CancellationError() }
            if channel.eventLoop.inEventLoop {
                guard channel.isActive else { throw CancellationError() }
                if channel.isWritable {
                    channel.writeAndFlush(bytes, promise: nil)
                    // Give the event loop back now and then, as waiting for the loop used to after every reply: a
                    // handler that sends in a tight loop would otherwise hold the loop's thread for as long as its
                    // client keeps up, and neither this connection's shutdown nor the loop's other connections
                    // would run. (A handler that waits for what it sends, like a watcher, gives it back anyway.)
                    if writesSinceYield.add(1, ordering: .relaxed).newValue >= Self.writesPerYield {
                        writesSinceYield.store(0, ordering: .relaxed)
                        await Task.yield()
                    }
                    return
                }
            }
            do {
                try await outbound.write(bytes)
            } catch {
                throw CancellationError()
            }
        }
    }
}
