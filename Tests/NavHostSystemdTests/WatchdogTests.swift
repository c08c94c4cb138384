import Foundation
import IntegrationHarness
import NavHostSystemd
import Synchronization
import Testing

@Suite("The watchdog pings from the MainActor")
struct WatchdogTests {
    /// WATCHDOG_USEC for the probe: pings every 200 ms.
    private static let timeout: Duration = .milliseconds(400)

    @Test("A daemon pings, never more often than half the time-out, and stops pinging when its MainActor is wedged")
    func pingsStopWhenWedged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try DatagramReceiver(path: directory.appending("notify"))
        let wedgeAfter = 8
        let probe = try SpawnedProcess(
            TestPaths.builtExecutable("NotifyProbe"),
            ["watchdog", "--wedge-after", "\(wedgeAfter)"],
            environment: ["NOTIFY_SOCKET": manager.path, "WATCHDOG_USEC": "\(Self.timeout.wholeMicroseconds)"]
        )

        // When each ping arrived, as the kernel stamped it: a test slow to read them (a busy machine) must not see
        // them bunched together.
        var pingTimes: [Duration] = []
        while true {
            let datagram = try #require(
                try await manager.receive(timeout: SpawnedProcess.patience),
                "the pings ended early"
            )
            #expect(datagram.senderPID == probe.pid)
            if datagram.text == "STATUS=wedged" { break }
            #expect(datagram.text == "WATCHDOG=1")
            pingTimes.append(try #require(datagram.arrival, "every datagram is stamped"))
        }
        #expect(pingTimes.count == wedgeAfter)

        // Seven gaps of about 200 ms each, never shorter than the sleeps allow. No upper bound: a busy machine may
        // delay a ping without end; how often the watchdog pings is checked with its sleep injected (`injectedSleep`).
        let first = try #require(pingTimes.first)
        let last = try #require(pingTimes.last)
        let span = last - first
        let gaps = Double(wedgeAfter - 1)
        #expect(span >= Self.timeout / 2 * gaps * 0.8, "pinged too often: \(span) for \(gaps) gaps")

        // With the MainActor wedged, no ping may arrive in five time-outs (the silence that makes systemd act).
        let late = try await manager.receive(timeout: Self.timeout * 5)
        #expect(late == nil, "a ping arrived from a wedged daemon: \(late?.text ?? "")")
        probe.send(SIGKILL)
        _ = await probe.waitForExit()
    }

    @Test("The watchdog time-out comes from WATCHDOG_USEC, for this process only")
    func configuredTimeout() async throws {
        let forThisProcess = try SpawnedProcess(
            TestPaths.builtExecutable("NotifyProbe"),
            ["watchdog-timeout"],
            environment: ["WATCHDOG_USEC": "250000"]
        )
        #expect(await forThisProcess.readOutputLine() == "250000")

        let forAnotherProcess = try SpawnedProcess(
            TestPaths.builtExecutable("NotifyProbe"),
            ["watchdog-timeout"],
            environment: ["WATCHDOG_USEC": "250000", "WATCHDOG_PID": "1"]
        )
        #expect(await forAnotherProcess.readOutputLine() == "off")

        let unset = try SpawnedProcess(TestPaths.builtExecutable("NotifyProbe"), ["watchdog-timeout"])
        #expect(await unset.readOutputLine() == "off")
    }

    @Test("Between pings the watchdog sleeps half the time-out, and it stops when sleeping is cancelled")
    @MainActor
    func injectedSleep() async {
        let pings = Mutex(0)
        let sleeps = Mutex<[Duration]>([])
        let watchdog = Watchdog(
            timeout: .seconds(10),
            ping: { pings.withLock { $0 += 1 } },
            sleep: { duration in
                let count = sleeps.withLock { sleeps in
                    sleeps.append(duration)
                    return sleeps.count
                }
                if count == 3 { throw CancellationError() }
            }
        )
        #expect(watchdog.pingInterval == .seconds(5))
        await watchdog.run()
        #expect(pings.withLock { $0 } == 3, "one ping before each sleep")
        #expect(sleeps.withLock { $0 } == [.seconds(5), .seconds(5), .seconds(5)])
    }

    @Test("Cancelling the task that runs the watchdog ends run()")
    func cancellation() async {
        let (firstPing, pinged) = AsyncStream<Void>.makeStream()
        let watchdog = Watchdog(timeout: .seconds(3600), ping: { pinged.yield() })
        let running = Task { await watchdog.run() }
        var iterator = firstPing.makeAsyncIterator()
        _ = await iterator.next()
        running.cancel()
        await running.value
        #expect(running.isCancelled)
    }
}

extension Duration {
    /// Whole microseconds, as WATCHDOG_USEC is written.
    var wholeMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
