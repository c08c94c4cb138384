import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// Limits that are fair to the operator: connections other users cannot take, connections that cannot be held idle
/// for ever, and a stop that no client can delay past systemd's `TimeoutStopSec=` (docs/robustness.md, "Limits").
@Suite("Limits fair to control users")
struct DaemonFairnessTests {
    @Test("Four other users at their per-user limit cannot take the connections reserved for control users")
    func reservedConnections() async throws {
        let daemon = try await DaemonProcess.start(
            extraArguments: [
                "--socket-mode", "0666", "--max-connections", "24", "--max-connections-per-uid", "8",
                "--reserved-connections", "4",
            ]
        )
        // Four users, each asking for its whole per-user limit: 32 wanted, 24 in all, 4 of them reserved.
        var holders: [SpawnedProcess] = []
        var held = 0
        for user in 0..<4 {
            let uid = 20_001 + user
            let holder = try SpawnedProcess(
                TestPaths.builtExecutable("varlink-call-as"),
                ["\(uid)", "\(uid)", daemon.socketPath, "--hold", "8"]
            )
            holders.append(holder)
            let line = try #require(await holder.readOutputLine(), "user \(uid) says how many it holds")
            let counts = line.split(separator: " ")
            try #require(counts.count == 4 && counts[0] == "held", "\(line)")
            held += Int(counts[1]) ?? 0
        }
        #expect(held == 20, "other users hold all but the 4 reserved connections")
        // Root is still served, on a connection of its own, and may control.
        let root = try await NavigationClient.connect(to: daemon)
        let pushed = try await root.call("Navigate", ["route": "settings.main"])
        #expect(pushed["screen"]?["route"] == "settings.main")
        #expect(daemon.log.contains("Refused a Varlink connection: over the connection limits"))
        for holder in holders { holder.send(SIGKILL) }
        try await root.close()
        #expect(try await daemon.terminate() == 0)
    }

    @Test("A connection that stays idle is closed after --idle-timeout; a Watch is not idle")
    func idleConnections() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: ["--idle-timeout", "1s"])
        // From before the connection: the daemon's clock for it starts when it takes it, which a busy machine may
        // leave until after `connect` returned here.
        let started = ContinuousClock.now
        let idle = try await UnixStreamSocket.connect(to: daemon.socketPath)
        let watcher = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(watcher.watch())
        try await idle.waitUntilPeerCloses(within: .seconds(20))
        let closedAfter = ContinuousClock.now - started
        #expect(closedAfter >= .seconds(1), "not before the time-out: \(closedAfter)")
        #expect(daemon.log.contains("Closed an idle Varlink connection"))
        // The watcher has waited as long, and still gets every change.
        try await Task.sleep(for: .seconds(1))
        let driver = try await NavigationClient.connect(to: daemon)
        try await driver.call("Navigate", ["route": "settings.main"])
        let event = try await updates.next(within: .seconds(10)) { $0["event"] != nil }
        #expect(event["event"]?["revision"] != nil, "the Watch still follows the session: \(event)")
        #expect(try await daemon.terminate() == 0)
    }

    @Test("A client whose replies back up is not idle: the send time-out ends it, not the shorter --idle-timeout")
    func backedUpIsNotIdle() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: ["--idle-timeout", "1s", "--send-timeout", "4s"])
        // Each reply carries the 128 kB session name back: a few of them fill every buffer on the way, and the daemon
        // stops reading the rest. Made before the connection: in a debug build on a busy machine, making them can take
        // longer than the idle time-out, and the connection would be idle for real.
        let name = String(repeating: "n", count: 128 << 10)
        let calls = Array(
            [[UInt8]](repeating: try callMessage("io.navhost.Navigation.Stack", ["session": .string(name)]), count: 16)
                .joined()
        )
        let client = try await UnixStreamSocket.connect(to: daemon.socketPath, receiveBuffer: 4096)
        // Written from this task, not a task of its own, which a busy test process may start late. The write ends
        // when the daemon closes the connection.
        let started = ContinuousClock.now
        let written = await client.write(calls)
        try await client.waitUntilPeerCloses(within: .seconds(20))
        let closedAfter = ContinuousClock.now - started
        #expect(written.error != nil, "the daemon stopped reading: \(written.written) bytes written")
        // Before, it was closed as idle about a second after its last call was read, its calls still unanswered.
        #expect(!daemon.log.contains("Closed an idle Varlink connection"), "\(daemon.log)")
        #expect(daemon.log.contains("(sendTimeout)"))
        #expect(closedAfter >= .seconds(4), "not before the send time-out: \(closedAfter)")
        #expect(try await daemon.terminate() == 0)
    }

    @Test("SIGTERM with a Watch whose client has stopped reading: the daemon exits within 20 s")
    func stopWithAStalledWatch() async throws {
        // A send timeout far past TimeoutStopSec: only the shutdown's own limit can end the stalled connection.
        let daemon = try await DaemonProcess.start(
            sessions: ["main=products.list"],
            extraArguments: ["--send-timeout", "10m", "--watch-queue-limit", "100000"]
        )
        let stalled = try await UnixStreamSocket.connect(to: daemon.socketPath, receiveBuffer: 4096)
        _ = await stalled.write(try callMessage("io.navhost.Navigation.Watch", more: true))
        _ = try await stalled.readMessages(1)
        // Enough changes that the watcher's replies back up far past the socket buffers.
        let driver = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        for round in 0..<10 {
            var calls: [UInt8] = []
            for index in 0..<200 {
                let text = (round * 200 + index).isMultiple(of: 2) ? "engine" : "card"
                calls += try callMessage(
                    "io.navhost.Navigation.Send",
                    ["intent": "onChangedFilter", "arguments": ["text": .string(text)]]
                )
            }
            try await driver.write(bytes: calls)
            _ = try await driver.readMessages(200, within: .seconds(60))
        }
        let stopping = ContinuousClock.now
        let status = try await daemon.terminate(within: .seconds(20))
        let took = ContinuousClock.now - stopping
        print("stop with a stalled Watch: exited \(status) after \(took)")
        #expect(status == 0)
        #expect(took < .seconds(20))
    }
}
