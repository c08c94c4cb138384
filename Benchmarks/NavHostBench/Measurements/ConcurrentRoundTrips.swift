/// Many clients at once, each doing round trips: every connection keeps one call in flight and writes its next call
/// as soon as the reply to the last one is in. Each call is timed from its write to its reply, so the latencies
/// include the time a call waits while the server answers the other clients.
///
/// One thread drives all the connections through epoll, as ``Pipelined`` does; replies are parsed with json-c as
/// they arrive and must carry `parameters.revision`.
enum ConcurrentRoundTrips {
    /// Times `callsPerConnection` round trips on each connection, after `warmUp` untimed ones on each.
    ///
    /// - Parameter requests: One pair of requests per connection (as many connections as pairs); each connection
    ///   alternates between its two. Pass the same request twice for a call that always does the same.
    static func measure(
        socketPath: String,
        requests: [([UInt8], [UInt8])],
        callsPerConnection: Int,
        warmUp: Int
    ) throws -> LatencyRecorder {
        let count = requests.count
        let connections = try requests.map { _ in try RawConnection(path: socketPath) }
        let poller = try Poller(capacity: count)
        for (token, connection) in connections.enumerated() { try poller.add(connection.fd, token: token) }
        let replies = ReplyReader()
        var latencies = LatencyRecorder()
        /// The index of each connection's call in flight (negative while warming up), and when it was written.
        var calls = [Int](repeating: -warmUp, count: count)
        var started = [UInt64](repeating: 0, count: count)
        var finished = 0

        func send(_ token: Int) throws {
            let (first, second) = requests[token]
            started[token] = MonotonicClock.now()
            try connections[token].write(calls[token] & 1 == 0 ? first : second)
        }

        for token in 0..<count { try send(token) }
        while finished < count {
            let ready = try poller.wait(milliseconds: 30_000) { token in
                let connection = connections[token]
                guard try connection.fill() else { throw BenchError("the server closed a client's connection") }
                guard try connection.takeMessage({ try replies.integer("revision", in: $0) }) != nil else { return }
                if calls[token] >= 0 { latencies.record(nanoseconds: MonotonicClock.now() - started[token]) }
                calls[token] += 1
                if calls[token] < callsPerConnection {
                    try send(token)
                } else {
                    finished += 1
                }
            }
            if ready == 0 { throw BenchError("\(count - finished) of \(count) clients got no reply within 30 s") }
        }
        return latencies
    }
}
