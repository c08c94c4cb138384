internal import Synchronization

/// The server's list of live connections: enforces the connection limits and reaches every connection on shutdown.
final class ConnectionRegistry: Sendable {
    /// A connection's place in the registry; give it back with ``remove(_:)``.
    struct Ticket: Sendable {
        let id: Int
        let uid: UInt32?
        let privileged: Bool
    }

    private struct State {
        var nextID = 0
        var total = 0
        /// Connections of peers that are not privileged: they may not take the reserved places.
        var unprivileged = 0
        var perUID: [UInt32: Int] = [:]
        var shutdownHandlers: [Int: @Sendable () -> Void] = [:]
        var shuttingDown = false
        var maxConnections: Int
        var maxConnectionsPerUID: Int
        var reservedConnections: Int
    }

    private let isPrivileged: @Sendable (VarlinkPeerCredentials?) -> Bool
    private let state: Mutex<State>

    init(
        maxConnections: Int,
        maxConnectionsPerUID: Int,
        reservedConnections: Int = 0,
        isPrivileged: @escaping @Sendable (VarlinkPeerCredentials?) -> Bool = { _ in false }
    ) {
        self.state = Mutex(
            State(
                maxConnections: maxConnections,
                maxConnectionsPerUID: maxConnectionsPerUID,
                reservedConnections: min(max(reservedConnections, 0), maxConnections)
            )
        )
        self.isPrivileged = isPrivileged
    }

    /// Puts new limits in force for the connections admitted from now on; those served already stay, even past a
    /// lowered limit.
    func updateLimits(maxConnections: Int, maxConnectionsPerUID: Int, reservedConnections: Int) {
        state.withLock { state in
            state.maxConnections = maxConnections
            state.maxConnectionsPerUID = maxConnectionsPerUID
            state.reservedConnections = min(max(reservedConnections, 0), maxConnections)
        }
    }

    /// Admits a connection, or returns `nil` when it would exceed a limit or the server is shutting down. A peer that
    /// is not privileged may not take the last `reservedConnections` places.
    ///
    /// Whether the peer is privileged is asked only when no other place is left: the question may look the user's
    /// groups up (NSS), on the thread that accepts every connection, which a reader's connection should not cost. A
    /// privileged peer admitted while places are left counts as any other.
    func admit(peer: VarlinkPeerCredentials?) -> Ticket? {
        if let ticket = admit(peer: peer, privileged: false) { return ticket }
        guard state.withLock({ $0.reservedConnections > 0 }), isPrivileged(peer) else { return nil }
        return admit(peer: peer, privileged: true)
    }

    private func admit(peer: VarlinkPeerCredentials?, privileged: Bool) -> Ticket? {
        state.withLock { state in
            guard !state.shuttingDown, state.total < state.maxConnections else { return nil }
            if !privileged {
                guard state.unprivileged < state.maxConnections - state.reservedConnections else { return nil }
            }
            if let uid = peer?.uid {
                guard state.perUID[uid, default: 0] < state.maxConnectionsPerUID else { return nil }
                state.perUID[uid, default: 0] += 1
            }
            state.total += 1
            if !privileged { state.unprivileged += 1 }
            defer { state.nextID += 1 }
            return Ticket(id: state.nextID, uid: peer?.uid, privileged: privileged)
        }
    }

    /// Sets what to do when the server shuts down; runs it at once when shutdown has begun.
    func onShutdown(_ ticket: Ticket, _ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.shuttingDown { return true }
            state.shutdownHandlers[ticket.id] = handler
            return false
        }
        if runNow { handler() }
    }

    /// Gives a connection's place back.
    func remove(_ ticket: Ticket) {
        state.withLock { state in
            state.total -= 1
            if !ticket.privileged { state.unprivileged -= 1 }
            state.shutdownHandlers[ticket.id] = nil
            if let uid = ticket.uid {
                state.perUID[uid, default: 1] -= 1
                if state.perUID[uid] == 0 { state.perUID[uid] = nil }
            }
        }
    }

    /// Starts shutdown: no connection is admitted any more, and every live one is told.
    func shutDown() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            state.shuttingDown = true
            defer { state.shutdownHandlers = [:] }
            return Array(state.shutdownHandlers.values)
        }
        for handler in handlers { handler() }
    }

    /// How many connections are live.
    var count: Int { state.withLock { $0.total } }
}
