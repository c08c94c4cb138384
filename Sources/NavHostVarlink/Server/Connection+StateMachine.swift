internal import NIOCore

extension Connection {
    /// The rules of one server connection, without any I/O: events go in, actions come out.
    ///
    /// - Replies go out strictly in the order the calls came in. A call whose handler finishes early waits until
    ///   every earlier call has been answered (pipelining).
    /// - A `oneway` call takes its place in the order but produces no reply.
    /// - Up to `maxConcurrentCalls` handlers run at once. A `more` call runs alone: it starts once every earlier call
    ///   has been answered, and no later call starts until its final reply has gone out (the specification says the
    ///   connection is busy while replies with `continues` are being sent). Its replies with `continues` go out as
    ///   they are produced; its final reply ends it.
    /// - At most `maxPendingCalls` calls are received but not yet answered. The reader asks for one call at a time
    ///   and is allowed another (``Action/allowNextCall``) each time a call has been answered.
    /// - When the input ends or the server shuts down, the calls already received are still answered; then the
    ///   connection closes. On shutdown, a running `more` call is cancelled.
    /// - A protocol violation closes the connection at once; replies not yet written are dropped.
    ///
    /// Calls start in the order they arrived, so the machine keeps only their ids and kinds: whoever feeds it keeps
    /// the calls themselves in a queue and takes the next one for each ``Action/startCall(_:)``. A `VarlinkCall`
    /// holds a `JSONObject`, whose layout the SDK hides (it is a resilient library): each copy of one, or of an enum
    /// holding one, is a value-witness call, and the machine's entries and actions were copied several times a call.
    ///
    /// - Important: The connection keeps it in a property that skips the runtime's exclusivity check (see
    ///   `Connection`'s "Exclusivity" comment): its mutating methods must call no code outside this type and the
    ///   values it holds (no stored closure, handler, logger hook or plugin code), or an overlapping access would
    ///   corrupt memory silently in a release build instead of stopping the daemon.
    struct StateMachine {
        /// Identifies a call on its connection.
        struct CallID: Hashable, Sendable, CustomStringConvertible {
            let value: Int
            var description: String { String(value) }
        }

        enum Action: Equatable {
            /// Run the handler of this call: the earliest received call not started yet.
            case startCall(CallID)
            /// Write this serialized message to the client.
            case write(ByteBuffer)
            /// The reader may read one more call.
            case allowNextCall
            /// Cancel the handler of the running `more` call.
            case cancelStream
            /// Close the connection.
            case close
        }

        private enum Kind {
            case reply
            case oneway
            case stream
        }

        private enum CallState {
            case waiting
            case running
            case finished(ByteBuffer?)
        }

        private struct Entry {
            var id: CallID
            var kind: Kind
            var state: CallState
        }

        private enum Mode {
            /// Reading and answering calls.
            case active
            /// Answering the calls already received, then closing.
            case draining
            /// Closed: every event is ignored.
            case closed
        }

        let maxPendingCalls: Int
        let maxConcurrentCalls: Int
        private var entries = CircularBuffer<Entry>()
        private var nextID = 0
        private var running = 0
        private var mode = Mode.active

        init(maxPendingCalls: Int, maxConcurrentCalls: Int) {
            precondition(maxPendingCalls >= 1 && maxConcurrentCalls >= 1, "connection limits must be at least 1")
            self.maxPendingCalls = maxPendingCalls
            self.maxConcurrentCalls = maxConcurrentCalls
        }

        /// How many calls are received but not yet answered.
        var pendingCalls: Int { entries.count }

        /// Whether calls are still taken: not after the input ended, a shutdown began, or the connection closed.
        var isReading: Bool {
            if case .active = mode { return true }
            return false
        }

        /// Whether the connection is closed.
        var isClosed: Bool {
            if case .closed = mode { return true }
            return false
        }

        // MARK: - Events
        //
        // Each event appends the actions it asks for to `actions`: the connection hands in a buffer it keeps, so the
        // one to three actions of an event cost no allocation of their own.

        /// A well-formed call arrived.
        mutating func receivedCall(_ call: VarlinkCall, into actions: inout [Action]) {
            guard case .active = mode else { return }
            assert(entries.count < maxPendingCalls, "the reader read a call it was not allowed to read")
            let kind: Kind = call.oneway ? .oneway : (call.more ? .stream : .reply)
            entries.append(Entry(id: CallID(value: nextID), kind: kind, state: .waiting))
            nextID += 1
            startReadyCalls(into: &actions)
        }

        /// A call's handler finished; `reply` is its serialized final reply, `nil` for a `oneway` call.
        mutating func callFinished(_ id: CallID, reply: ByteBuffer?, into actions: inout [Action]) {
            guard !isClosed, let index = entries.firstIndex(where: { $0.id == id }) else { return }
            guard case .running = entries[index].state else { return }
            entries[index].state = .finished(reply)
            running -= 1
            flush(into: &actions)
            startReadyCalls(into: &actions)
            closeIfDrained(into: &actions)
        }

        /// Whether the final reply of `id`, were it to finish now, would be written at once: it is the running call
        /// at the head of the queue (every reply before it has gone out), and the connection is not closed.
        func writesAtOnce(_ id: CallID) -> Bool {
            guard !isClosed, let head = entries.first, head.id == id, case .running = head.state else { return false }
            return true
        }

        /// The `more` call whose replies with `continues` may go out now, as they are produced: the running call at
        /// the head of the queue, if it is a `more` call and the connection is not closed. Replies of any other call
        /// are dropped.
        var runningStreamCall: CallID? {
            guard !isClosed, let head = entries.first, head.kind == .stream, case .running = head.state else {
                return nil
            }
            return head.id
        }

        /// The client will send nothing more (it closed or half-closed the connection).
        mutating func inputEnded(into actions: inout [Action]) {
            guard case .active = mode else { return }
            mode = .draining
            closeIfDrained(into: &actions)
        }

        /// The server shuts down gracefully.
        mutating func shutdownRequested(into actions: inout [Action]) {
            if isClosed { return }
            mode = .draining
            if let head = entries.first, head.kind == .stream, case .running = head.state {
                actions.append(.cancelStream)
            }
            closeIfDrained(into: &actions)
        }

        /// The client broke the protocol, or the connection failed.
        mutating func connectionFailed(into actions: inout [Action]) {
            if isClosed { return }
            mode = .closed
            entries.removeAll()
            actions.append(.close)
        }

        // MARK: - Private

        /// Writes the replies at the head of the queue that are ready, in order.
        private mutating func flush(into actions: inout [Action]) {
            while let head = entries.first, case .finished(let reply) = head.state {
                entries.removeFirst()
                if let reply { actions.append(.write(reply)) }
                actions.append(.allowNextCall)
            }
        }

        private mutating func startReadyCalls(into actions: inout [Action]) {
            // Not `for index in entries.indices`: a circular buffer's indices hold the buffer, and the first entry
            // started in the loop would copy all of it.
            var index = entries.startIndex
            while index != entries.endIndex {
                let entry = entries[index]
                switch entry.state {
                case .running:
                    if entry.kind == .stream { return }
                case .finished:
                    break
                case .waiting:
                    if entry.kind == .stream, index != entries.startIndex { return }
                    guard running < maxConcurrentCalls else { return }
                    entries[index].state = .running
                    running += 1
                    actions.append(.startCall(entry.id))
                    if entry.kind == .stream { return }
                }
                entries.formIndex(after: &index)
            }
        }

        private mutating func closeIfDrained(into actions: inout [Action]) {
            guard case .draining = mode, entries.isEmpty else { return }
            mode = .closed
            actions.append(.close)
        }
    }
}
