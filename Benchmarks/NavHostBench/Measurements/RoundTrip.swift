/// One call at a time on one connection: write the call, read and check its reply, repeat — the floor's ping-pong.
enum RoundTrip {
    /// Times `calls` round trips of `request` after `warmUp` untimed ones.
    ///
    /// Each reply is parsed with json-c and must carry `parameters.revision`, as the floor's client parses each
    /// reply and reads `parameters.seq`.
    static func measure(socketPath: String, request: [UInt8], calls: Int, warmUp: Int) throws -> LatencyRecorder {
        let connection = try RawConnection(path: socketPath)
        let replies = ReplyReader()
        var latencies = LatencyRecorder()
        try request.withUnsafeBytes { request in
            for index in -warmUp..<calls {
                let start = MonotonicClock.now()
                try connection.write(request)
                _ = try connection.nextMessage { try replies.integer("revision", in: $0) }
                if index >= 0 { latencies.record(nanoseconds: MonotonicClock.now() - start) }
            }
        }
        return latencies
    }

    /// Times `calls` round trips that alternate between two requests, after `warmUp` untimed ones: with two intents
    /// that set different states, every call changes the screen's state.
    static func measure(
        socketPath: String,
        alternating requests: ([UInt8], [UInt8]),
        calls: Int,
        warmUp: Int
    ) throws -> LatencyRecorder {
        let connection = try RawConnection(path: socketPath)
        let replies = ReplyReader()
        var latencies = LatencyRecorder()
        for index in -warmUp..<calls {
            let start = MonotonicClock.now()
            try connection.write(index & 1 == 0 ? requests.0 : requests.1)
            _ = try connection.nextMessage { try replies.integer("revision", in: $0) }
            if index >= 0 { latencies.record(nanoseconds: MonotonicClock.now() - start) }
        }
        return latencies
    }

    /// Sends `request` once and checks its reply: puts a screen back into a known state after a measurement.
    static func once(socketPath: String, request: [UInt8]) throws {
        let connection = try RawConnection(path: socketPath)
        try connection.write(request)
        _ = try connection.nextMessage { try ReplyReader().integer("revision", in: $0) }
    }
}
