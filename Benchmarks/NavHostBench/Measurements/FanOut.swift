/// Fan-out: one state change, seen by many watchers, each on a connection of its own with a `Watch` call (`more`).
///
/// A controller connection sends an intent that changes the state of the watched screen; the time of a round runs
/// from writing that call until the last watcher has received the whole `stateChanged` event. While a round runs the
/// client only looks for each message's NUL (and notes the time); it parses and checks every event once the round
/// is over, so its own parsing does not delay the last arrival.
enum FanOut {
    /// What the timed rounds gave.
    struct Result {
        /// From writing the change until the last watcher had it.
        var latencies: LatencyRecorder
        /// The daemon's CPU time per change, over the timed rounds, in microseconds.
        var daemonCPUMicroseconds: Double
    }

    /// Times `rounds` state changes (after `warmUp` untimed ones) seen by `watchers` watchers of `session`.
    ///
    /// - Parameter changes: Two `Send` calls that set different states; rounds alternate between them.
    static func measure(
        daemon: DaemonProcess,
        session: String,
        changes: ([UInt8], [UInt8]),
        watchers count: Int,
        rounds: Int,
        warmUp: Int
    ) throws -> Result {
        let socketPath = daemon.socketPath
        let replies = ReplyReader()
        let watch = VarlinkMessage.watch(session: session)
        var watchers: [RawConnection] = []
        for _ in 0..<count {
            let connection = try RawConnection(path: socketPath, initialCapacity: 8192)
            try connection.write(watch)
            watchers.append(connection)
        }
        for watcher in watchers {
            try watcher.nextMessage { message in
                try replies.read(message) { reply in
                    guard reply["continues"]?.boolean == true, reply["parameters"]?["snapshot"] != nil else {
                        throw BenchError("a watcher's first reply is not a snapshot")
                    }
                }
            }
        }
        let controller = try RawConnection(path: socketPath)
        let poller = try Poller(capacity: count + 1)
        for (token, watcher) in watchers.enumerated() { try poller.add(watcher.fd, token: token) }
        try poller.add(controller.fd, token: count)

        var latencies = LatencyRecorder()
        var arrived = [Bool](repeating: false, count: count)
        var usage: ProcessUsage?
        for round in -warmUp..<rounds {
            if round == 0 { usage = try daemon.usage() }
            for index in arrived.indices { arrived[index] = false }
            var waiting = count
            var answered = false
            var last: UInt64 = 0
            let start = MonotonicClock.now()
            try controller.write(round & 1 == 0 ? changes.0 : changes.1)
            while waiting > 0 || !answered {
                let ready = try poller.wait(milliseconds: 30_000) { token in
                    if token == count {
                        guard try controller.fill() else { throw BenchError("the daemon closed the controller") }
                        if try controller.takeMessage({ try replies.integer("revision", in: $0) }) != nil {
                            answered = true
                        }
                        return
                    }
                    let watcher = watchers[token]
                    guard try watcher.fill() else { throw BenchError("the daemon closed a watcher's connection") }
                    if !arrived[token], watcher.hasMessage {
                        arrived[token] = true
                        waiting -= 1
                        last = MonotonicClock.now()
                    }
                }
                if ready == 0 { throw BenchError("\(waiting) of \(count) watchers saw no change within 30 s") }
            }
            if round >= 0 { latencies.record(nanoseconds: last - start) }
            for watcher in watchers {
                let kind: String? =
                    try watcher.takeMessage { message in
                        try replies.read(message) { $0["parameters"]?["event"]?["kind"]?.string }
                    } ?? nil
                guard kind == "stateChanged" else {
                    throw BenchError("a watcher got \(kind.map { "a \($0) event" } ?? "no event") for a state change")
                }
            }
        }
        let cpu = try usage.map { try daemon.usage().perOperation(since: $0, count: rounds).cpuMicroseconds } ?? 0
        return Result(latencies: latencies, daemonCPUMicroseconds: cpu)
    }
}
