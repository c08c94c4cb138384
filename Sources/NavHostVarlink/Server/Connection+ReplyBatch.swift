internal import NIOCore

extension Connection {
    /// The replies the connection's loop has released but not written yet: pipelined calls are answered with one
    /// write per batch, not one per reply.
    ///
    /// The loop applies the rules:
    /// - A reply goes out at once when no other call of the connection is received and unanswered, so a client that
    ///   waits for each reply never waits for a batch; inside a read, when the read is over, so that the replies of
    ///   the calls one read brought share a write.
    /// - Otherwise it waits for the replies of the calls after it, until none is left, the batch holds ``maxReplies``
    ///   replies or ``maxBytes`` bytes (inside a read too), or ``maxDelay`` has passed since its first reply,
    ///   whichever comes first.
    /// - The batch is written before a `more` call starts (its replies with `continues` go straight to the channel)
    ///   and before the connection closes, so the order of replies is the order of calls.
    ///
    /// A batch is one buffer, handed to the channel as one write: a batch of one reply is that reply's own buffer;
    /// the replies of a larger one are copied, in order, into a buffer the batch keeps from one write to the next
    /// (reused once the channel has written it and let it go, up to ``keptCapacity``). A write through the pipeline
    /// costs far more than copying a reply: about 1,800 instructions each, 64 times per burst, before this.
    ///
    /// - Important: The connection keeps it in a property that skips the runtime's exclusivity check (see
    ///   `Connection`'s "Exclusivity" comment): its mutating methods must call no code outside this type and the
    ///   values it holds (no stored closure, handler, logger hook or plugin code), or an overlapping access would
    ///   corrupt memory silently in a release build instead of stopping the daemon.
    struct ReplyBatch {
        /// A batch is written once it holds this many replies (one call's end may release several, when calls run
        /// at once): half of a burst of 64 calls in flight, so that a client reads and answers the first half while
        /// the daemon runs the second. Until session 54 a read's replies all waited for its end, and the client and
        /// the daemon took turns, each idle while the other worked: 64 calls pipelined on one connection ran at
        /// 56,800 a second (median of ten `navhost-bench --only pipelined` runs, interleaved with the same build's),
        /// 80,200 with 32; on 16 connections, where the daemon is never idle, the two were within the runs' spread.
        /// Batches of 16 and 8 did worse than the old build on 16 connections in five of six runs
        /// (docs/performance-log.md, session 54).
        static let maxReplies = 32
        /// The most bytes one batch holds before it is written.
        static let maxBytes = 64 * 1024
        /// The longest a released reply waits for the ones after it.
        static let maxDelay = TimeAmount.milliseconds(2)
        /// The largest buffer kept from one batch for the next: a connection that once had a large batch does not
        /// hold its room while idle.
        static let keptCapacity = 32 * 1024

        /// The batch's first reply, as it was released.
        private var first: ByteBuffer?
        /// From the second reply on: the batch's replies, in order, in one buffer (the first included).
        private var joined = ByteBuffer()
        private var isJoined = false
        private var count = 0
        private var bytes = 0

        var isEmpty: Bool { count == 0 }

        var isFull: Bool { count >= Self.maxReplies || bytes >= Self.maxBytes }

        mutating func append(_ reply: ByteBuffer) {
            count += 1
            bytes += reply.readableBytes
            if !isJoined {
                guard first != nil else {
                    first = reply
                    return
                }
                startJoining(adding: reply.readableBytes)
            }
            // Joined already, by a reply written straight into the buffer (`append(_:)` of parameters) with no first
            // one: a reply kept as the first then was never written (a pipelined call's error after a `Send`).
            joined.writeImmutableBuffer(reply)
        }

        /// Appends the final reply with `parameters`, written straight into the batch's buffer.
        mutating func append(_ parameters: VarlinkSerializedParameters) {
            if !isJoined { startJoining(adding: parameters.text.count + 16) }
            count += 1
            bytes += joined.writeVarlinkReply(parameters)
        }

        /// Starts the joined buffer, with room for the first reply, if any, and about 8 replies of their size.
        ///
        /// Emptied here, not after the write: the channel lets go of the buffer once it is written, and clearing it
        /// then finds it unshared and keeps its room.
        private mutating func startJoining(adding bytes: Int) {
            isJoined = true
            joined.clear(minimumCapacity: min(Self.maxBytes, 8 * (bytes + (first?.readableBytes ?? 0))))
            if let first { joined.writeImmutableBuffer(first) }
        }

        /// Empties the batch and returns what it held, in order, as one buffer; `nil` when it is empty.
        mutating func take() -> ByteBuffer? {
            defer {
                first = nil
                isJoined = false
                count = 0
                bytes = 0
            }
            guard isJoined else { return first }
            let replies = joined
            if joined.capacity > Self.keptCapacity { joined = ByteBuffer() }
            return replies
        }
    }
}
