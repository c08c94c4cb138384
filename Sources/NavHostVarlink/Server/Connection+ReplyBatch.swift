internal import NIOCore

extension Connection {
    /// The replies the connection's loop has released but not written yet: pipelined calls are answered with one
    /// write, not one per reply.
    ///
    /// The loop applies the rules:
    /// - A reply goes out at once when no other call of the connection is received and unanswered, so a client that
    ///   waits for each reply never waits for a batch.
    /// - Otherwise it waits for the replies of the calls after it, until none is left, the batch holds ``maxReplies``
    ///   replies or ``maxBytes`` bytes, or ``maxDelay`` has passed since its first reply, whichever comes first.
    /// - The batch is written before a `more` call starts (its replies with `continues` go straight to the channel)
    ///   and before the connection closes, so the order of replies is the order of calls.
    struct ReplyBatch {
        /// The most replies one write carries.
        static let maxReplies = 64
        /// The most bytes one batch holds before it is written.
        static let maxBytes = 64 * 1024
        /// The longest a released reply waits for the ones after it.
        static let maxDelay = TimeAmount.milliseconds(2)

        private var replies: [ByteBuffer] = []
        private var bytes = 0
        /// An empty array with room, handed back by ``recycle(_:)``: the next batch fills it, and a write costs no
        /// allocation of an array of its own.
        private var spare: [ByteBuffer] = []

        var isEmpty: Bool { replies.isEmpty }

        var isFull: Bool { replies.count >= Self.maxReplies || bytes >= Self.maxBytes }

        mutating func append(_ reply: ByteBuffer) {
            replies.append(reply)
            bytes += reply.readableBytes
        }

        /// Empties the batch and returns what it held, in order; hand the array to ``recycle(_:)`` once written.
        mutating func take() -> [ByteBuffer] {
            bytes = 0
            var taken: [ByteBuffer] = []
            swap(&taken, &spare)
            swap(&taken, &replies)
            return taken
        }

        /// Takes back an array ``take()`` returned, once its replies are written, to hold a later batch.
        mutating func recycle(_ taken: inout [ByteBuffer]) {
            // `popLast`, not `removeAll(keepingCapacity:)`, which goes through `replaceSubrange`: a batch holds one
            // reply or a few.
            while taken.popLast() != nil {}
            if spare.capacity == 0 { swap(&spare, &taken) }
        }
    }
}
