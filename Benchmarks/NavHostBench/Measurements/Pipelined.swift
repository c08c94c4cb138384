/// Pipelined throughput: each connection keeps `depth` calls in flight, writing one more call for every reply, as the
/// floor's second test does (with one connection).
enum Pipelined {
    /// The outcome of one pipelined run.
    struct Result {
        /// Replies per second, over all connections.
        var requestsPerSecond: Double
        /// Calls answered in all.
        var calls: Int
        /// How long it took, in seconds.
        var seconds: Double
    }

    /// Runs `callsPerConnection` calls of `request` on each of `connections` connections, `depth` in flight on each.
    ///
    /// Every reply is parsed with json-c and must carry `parameters.revision`.
    static func measure(
        socketPath: String,
        request: [UInt8],
        connections count: Int,
        depth: Int,
        callsPerConnection: Int
    ) throws -> Result {
        let connections = try (0..<count).map { _ in try RawConnection(path: socketPath) }
        let poller = try Poller()
        for (token, connection) in connections.enumerated() { try poller.add(connection.fd, token: token) }
        let replies = ReplyReader()
        let batch = Array([[UInt8]](repeating: request, count: depth).joined())
        var sent = [Int](repeating: 0, count: count)
        var answered = [Int](repeating: 0, count: count)
        var finished = 0

        let start = MonotonicClock.now()
        try batch.withUnsafeBytes { batch in
            for (token, connection) in connections.enumerated() {
                sent[token] = min(depth, callsPerConnection)
                try connection.write(UnsafeRawBufferPointer(rebasing: batch[..<(sent[token] * request.count)]))
            }
            while finished < count {
                try poller.wait(milliseconds: -1) { token in
                    let connection = connections[token]
                    guard try connection.fill() else { throw BenchError("the daemon closed a pipelined connection") }
                    var received = 0
                    while try connection.takeMessage({ try replies.integer("revision", in: $0) }) != nil {
                        received += 1
                    }
                    guard received > 0 else { return }
                    answered[token] += received
                    let more = min(received, callsPerConnection - sent[token])
                    if more > 0 {
                        try connection.write(UnsafeRawBufferPointer(rebasing: batch[..<(more * request.count)]))
                        sent[token] += more
                    }
                    if answered[token] == callsPerConnection { finished += 1 }
                }
            }
        }
        let seconds = Double(MonotonicClock.now() - start) / 1e9
        let calls = count * callsPerConnection
        return Result(requestsPerSecond: Double(calls) / seconds, calls: calls, seconds: seconds)
    }
}
