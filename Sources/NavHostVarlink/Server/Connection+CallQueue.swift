internal import NIOCore

extension Connection {
    /// The connection's state machine, the frames it has not taken as calls yet and the calls it rules, kept in one
    /// stored property of the connection.
    ///
    /// Each stored property of a class is checked for exclusive access at run time, every time it is read or
    /// written (about 80 instructions each). The state machine, the calls received and those due to start, and the
    /// buffer of actions were four properties, touched five to seven times per event; held together here, an event is
    /// one access: the machine takes it, and the calls it starts move to ``toStart``, before the connection carries
    /// out the rest of the actions outside the access (a close they cause may touch the queue again). The frames are
    /// here too, so that finding the connection's next step, a call to start or a frame to read, is one access.
    ///
    /// - Important: The connection keeps it in a property that skips the runtime's exclusivity check (see
    ///   `Connection`'s "Exclusivity" comment): its mutating methods must call no code outside this type and the
    ///   values it holds (no stored closure, handler, logger hook or plugin code), or an overlapping access would
    ///   corrupt memory silently in a release build instead of stopping the daemon.
    struct CallQueue {
        var machine: StateMachine
        /// Frames received and not yet taken as calls, oldest first (a read brought several, or the state machine's
        /// limit on pending calls was reached).
        private(set) var frames = CircularBuffer<ByteBuffer>()
        /// Calls taken by the state machine and not started yet, oldest first: the order it starts them in.
        private(set) var received = CircularBuffer<VarlinkCall>()
        /// Calls the state machine started whose handlers the connection has not run yet, oldest first.
        private(set) var toStart = CircularBuffer<(StateMachine.CallID, VarlinkCall)>()
        /// The buffer ``take(_:)`` gathers an event's actions in, kept empty between events.
        private var spareActions: [StateMachine.Action] = []

        init(machine: StateMachine) {
            self.machine = machine
        }

        /// What ``next()`` finds for the connection to do.
        enum Next {
            /// Run the handler of this call.
            case start(StateMachine.CallID, VarlinkCall)
            /// Read this frame as a call: the machine takes another.
            case receive(ByteBuffer)
            /// No call is due to start and no frame is taken now; `framesWaiting` says whether frames are kept for
            /// later (the machine takes no more calls until some are answered).
            case idle(framesWaiting: Bool)
            /// The connection is closed.
            case closed
        }

        /// Takes the next call due to start, else the next frame when the machine takes another call. Once the machine
        /// no longer reads calls (a shutdown began), the frames kept are dropped unread.
        mutating func next() -> Next {
            if machine.isClosed { return .closed }
            if let (id, call) = toStart.popFirst() { return .start(id, call) }
            guard machine.isReading else {
                // The calls received are answered; a frame kept behind the limit is not one of them. Taken as the
                // answers make room, it was dropped if it was a call, and a malformed one failed the connection before
                // the calls still running were answered. (The end of input stops the reading only once the frames
                // kept are taken: they are calls received.)
                if !frames.isEmpty { frames.removeAll() }
                return .idle(framesWaiting: false)
            }
            if machine.pendingCalls < machine.maxPendingCalls, let frame = frames.popFirst() { return .receive(frame) }
            return .idle(framesWaiting: !frames.isEmpty)
        }

        /// Keeps a frame received, for ``next()`` to hand out in order.
        mutating func keep(_ frame: ByteBuffer) {
            frames.append(frame)
        }

        /// Whether more input may be read: the machine reads calls, takes another now, and no frame waits for it.
        var takesMoreInput: Bool {
            machine.isReading && frames.isEmpty && machine.pendingCalls < machine.maxPendingCalls
        }

        /// Tells the state machine of an event, and moves the calls it starts from ``received`` to ``toStart``.
        ///
        /// - Returns: The event's actions, for the connection to carry out and hand back (``giveBack(_:)``), and the
        ///   `more` call whose replies may go out now (``StateMachine/runningStreamCall``).
        mutating func take(
            _ event: (inout StateMachine, inout [StateMachine.Action]) -> Void
        ) -> (actions: [StateMachine.Action], streamCall: StateMachine.CallID?) {
            // Taken, not shared: an event nested in another's actions (a close they cause) finds the buffer empty
            // and gathers its actions in one of its own.
            var actions = spareActions
            spareActions = []
            event(&machine, &actions)
            for case .startCall(let id) in actions {
                toStart.append((id, received.removeFirst()))
            }
            return (actions, machine.runningStreamCall)
        }

        /// A well-formed call arrived: kept and told to the machine as ``take(_:)`` does, unless the machine no longer
        /// reads calls (then it must not wait in the queue either), which returns `nil`.
        mutating func receive(
            _ call: VarlinkCall
        ) -> (actions: [StateMachine.Action], streamCall: StateMachine.CallID?)? {
            guard machine.isReading else { return nil }
            received.append(call)
            return take { $0.receivedCall(call, into: &$1) }
        }

        /// Takes back the buffer of an event's actions, emptied, with its room.
        mutating func giveBack(_ actions: inout [StateMachine.Action]) {
            // `popLast`, not `removeAll(keepingCapacity:)`, which goes through `replaceSubrange`: an event has an
            // action or two.
            while actions.popLast() != nil {}
            spareActions = actions
        }

        /// Drops the frames not taken and the calls not started: the connection stopped.
        mutating func removeAll() {
            frames.removeAll()
            received.removeAll()
            toStart.removeAll()
        }
    }
}
