import Glibc

/// A peer's figures (the Python one or the Go one): the intents NavHost's rows time, sent to the peer
/// (``PeerProcess``) by the same client code (``RoundTrip``, ``ConcurrentRoundTrips``, ``Pipelined``), in the same run.
/// NavHost's rows show their ratio to these beside their ratio to the floor.
enum Peer {
    /// What the peer gave.
    struct Figures {
        /// The steady intent (no state change), one call at a time on one connection.
        var steady: LatencyRecorder
        /// The peer process's CPU time per steady call (its warm-up calls included), in microseconds: the daemon's
        /// row beside it is measured the same way (``ProcessUsage``).
        var steadyCPUMicroseconds: Double
        /// Intents that change the state each call (each one saved durably first), one at a time on one connection.
        var changing: LatencyRecorder
        /// The steady intent from many clients at once, each doing round trips.
        var steadyConcurrent: LatencyRecorder
        /// State changes from many clients at once, each doing round trips.
        var changingConcurrent: LatencyRecorder
        /// The steady intent pipelined on one connection, `depth` calls in flight.
        var pipelined: Pipelined.Result
        /// Its replies to ``ScreenAgreement/probes``, sent before the timed calls: checked against navhostd's.
        var probeReplies: [String]
    }

    /// Measures the peer (process `pid`, on `socketPath`) with `plan`'s peer counts, in the order NavHost is measured.
    static func measure(pid: pid_t, socketPath: String, plan: BenchPlan) throws -> Figures {
        let probeReplies = try ScreenAgreement.replies(socketPath: socketPath)
        let before = try ProcessUsage.of(pid)
        let steady = try RoundTrip.measure(
            socketPath: socketPath,
            request: BenchRun.steadyIntent,
            calls: plan.peerRoundTrips,
            warmUp: plan.peerWarmUp
        )
        let steadyCPU = try ProcessUsage.of(pid).perOperation(
            since: before,
            count: plan.peerRoundTrips + plan.peerWarmUp
        )
        let changing = try RoundTrip.measure(
            socketPath: socketPath,
            alternating: BenchRun.changingIntents(session: "rt"),
            calls: plan.peerChangingRoundTrips,
            warmUp: plan.peerWarmUp
        )
        try RoundTrip.once(socketPath: socketPath, request: BenchRun.steadyIntent)
        let steadyConcurrent = try ConcurrentRoundTrips.measure(
            socketPath: socketPath,
            requests: BenchRun.concurrentSteadyIntents(clients: plan.concurrentConnections),
            callsPerConnection: plan.peerConcurrentRoundTrips,
            warmUp: plan.concurrentWarmUp
        )
        let changingConcurrent = try ConcurrentRoundTrips.measure(
            socketPath: socketPath,
            requests: BenchRun.concurrentChangingIntents(session: "rt", clients: plan.concurrentConnections),
            callsPerConnection: plan.peerConcurrentChangingRoundTrips,
            warmUp: plan.concurrentWarmUp
        )
        try RoundTrip.once(socketPath: socketPath, request: BenchRun.steadyIntent)
        // A short untimed run first, as for NavHost.
        _ = try Pipelined.measure(
            socketPath: socketPath,
            request: BenchRun.steadyIntent,
            connections: 1,
            depth: plan.depth,
            callsPerConnection: max(plan.peerPipelined / 20, plan.depth)
        )
        let pipelined = try Pipelined.measure(
            socketPath: socketPath,
            request: BenchRun.steadyIntent,
            connections: 1,
            depth: plan.depth,
            callsPerConnection: plan.peerPipelined
        )
        return Figures(
            steady: steady,
            steadyCPUMicroseconds: steadyCPU.cpuMicroseconds,
            changing: changing,
            steadyConcurrent: steadyConcurrent,
            changingConcurrent: changingConcurrent,
            pipelined: pipelined,
            probeReplies: probeReplies
        )
    }
}
