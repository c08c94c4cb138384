import Foundation
import Glibc
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// Rows of the bad-input table that need a daemon of their own: they load it as a whole, or change its limits.
@Suite("Bad input under load: slow watchers, many connections", .serialized)
struct BadInputLoadTests {
    /// How many state changes the slow-watcher test drives: `NAVHOST_SOAK_CHANGES`, or 10,000 in the ordinary suite
    /// (`make test-soak` runs 100,000).
    static var changes: Int {
        ProcessInfo.processInfo.environment["NAVHOST_SOAK_CHANGES"].flatMap(Int.init) ?? 10_000
    }

    @Test(
        "A Watch that stops reading while another client drives many state changes: memory stays bounded, the watcher is coalesced and catches up once it reads, every call is answered"
    )
    func watcherThatNeverReads() async throws {
        let total = Self.changes
        // The send timeout is long, so the stalled watcher stays connected for the whole run: only the Watch queue
        // limit bounds what the daemon holds for it. No idle time-out either: the witness waits, idle, for the whole
        // run, which takes more than the default 5 minutes on a loaded machine (`make test-soak` in CI once did).
        let daemon = try await DaemonProcess.start(
            sessions: ["main=products.list", "witness=home.main"],
            extraArguments: ["--send-timeout", "10m", "--watch-queue-limit", "256", "--idle-timeout", "off"]
        )
        let witness = try await Witness.connect(to: daemon, session: "witness")
        let slow = try await UnixStreamSocket.connect(to: daemon.socketPath, receiveBuffer: 4096)
        try await slow.send(["method": "io.navhost.Navigation.Watch", "more": true])
        let snapshot = try await slow.readMessages(1)
        #expect(snapshot.first?.contains(#""snapshot""#) == true, "the watcher got its snapshot; now it stops reading")

        let driver = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        let batch = 128
        var answered = 0
        var lastRevision: Int64 = 0
        var samples: [Int] = []
        while answered < total {
            let count = min(batch, total - answered)
            var calls: [UInt8] = []
            for index in answered..<(answered + count) {
                let text = index.isMultiple(of: 2) ? "engine" : "card"
                calls += try callMessage(
                    "io.navhost.Navigation.Send",
                    ["intent": "onChangedFilter", "arguments": ["text": .string(text)]]
                )
            }
            try await driver.write(bytes: calls)
            let replies = try await driver.readMessages(count, within: .seconds(60))
            try #require(replies.count == count, "the driver's calls are answered")
            for reply in replies {
                let revision = try #require(
                    try JSONParser().parse(Array(reply.utf8))["parameters"]?["revision"]?.intValue,
                    "an acknowledgement, not an error: \(reply.prefix(200))"
                )
                #expect(revision > lastRevision)
                lastRevision = revision
            }
            answered += count
            samples.append(try #require(daemon.residentKiB, "the daemon is running"))
        }

        let firstQuarter = try #require(samples.prefix(max(samples.count / 4, 1)).max())
        let secondHalf = try #require(samples.suffix(max(samples.count / 2, 1)).max())
        print(
            "navhostd RSS over \(total) state changes with a stalled watcher: first quarter max \(firstQuarter) KiB, "
                + "second half max \(secondHalf) KiB, overall max \(samples.max() ?? 0) KiB, "
                + "stalled watcher's unread bytes \(slow.unreadBytes)"
        )
        #expect(
            secondHalf <= firstQuarter + firstQuarter / 2,
            "no unbounded growth: \(secondHalf) KiB in the second half against \(firstQuarter) KiB in the first quarter"
        )
        #expect(slow.unreadBytes > 0, "the daemon stopped writing to the watcher because its socket was full")

        // The daemon coalesced the watcher's updates each time its queue filled, and did not give up on it: once it
        // reads again, it gets what was already in its socket, then a coalesced snapshot and the events after it, up
        // to the driver's last revision.
        var messages: [String] = []
        var coalesced = 0
        var reached: Int64 = 0
        while reached < lastRevision {
            let message = try #require(try await slow.readMessages(1, within: .seconds(60)).first, "\(messages.count)")
            messages.append(message)
            let parameters = try JSONParser().parse(Array(message.utf8))["parameters"]
            if parameters?["coalesced"] == true { coalesced += 1 }
            let revision = parameters?["snapshot"]?["revision"]?.intValue ?? parameters?["event"]?["revision"]?.intValue
            reached = try #require(revision, "a snapshot or an event, not an error: \(message.prefix(200))")
        }
        #expect(reached == lastRevision)
        #expect(coalesced >= 1, "it caught up through a coalesced snapshot")
        #expect(messages.count < 1_000, "far fewer updates than changes reached it: \(messages.count)")
        slow.close()

        // Nothing acknowledged is lost: a fresh watcher starts at the driver's last revision.
        let fresh = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        var updates = fresh.callMore("io.navhost.Navigation.Watch").makeAsyncIterator()
        let current = try #require(try await updates.next())
        #expect(current["snapshot"]?["revision"]?.intValue == lastRevision)
        try await fresh.close()
        try await driver.close()
        try await witness.confirm()
        #expect(try await daemon.terminate() == 0)
    }

    @Test(
        "1,000 connections at once: each is answered or refused past --max-connections, and the daemon's descriptors come back"
    )
    func thousandConnections() async throws {
        try ProcessLimits.raiseOpenFiles(to: 4096)
        let daemon = try await DaemonProcess.start(
            extraArguments: ["--max-connections", "900", "--max-connections-per-uid", "2000"]
        )
        let witness = try await Witness.connect(to: daemon, session: "main")
        let baseline = try #require(daemon.openDescriptors)

        var clients: [UnixStreamSocket] = []
        for _ in 0..<1_000 {
            clients.append(try await UnixStreamSocket.connect(to: daemon.socketPath))
        }
        let call = try callMessage("org.varlink.service.GetInfo")
        var answered = 0
        var refused = 0
        for client in clients {
            // A refused connection may already be closed when the call goes out: the write then fails.
            await client.write(call)
        }
        for client in clients {
            let replies = try await client.readMessages(1)
            if replies.first?.contains(#""product":"navhostd""#) == true {
                answered += 1
            } else {
                #expect(replies.isEmpty, "a refusal is a close, not a reply: \(replies)")
                refused += 1
            }
        }
        print("1,000 connections: \(answered) answered, \(refused) refused; daemon descriptors \(baseline) before")
        #expect(answered == 899, "every connection the limit allows (900, less the witness's) is served")
        #expect(refused == 101)
        let during = daemon.openDescriptors ?? 0
        #expect(during >= baseline + 899)

        for client in clients { client.close() }
        try await withTimeout(.seconds(30), "the daemon's descriptors to come back to \(baseline)") {
            while (daemon.openDescriptors ?? 0) > baseline { try await Task.sleep(for: .milliseconds(20)) }
        }
        let after = try #require(daemon.openDescriptors)
        print("daemon descriptors: \(baseline) before, \(during) with 1,000 clients, \(after) after they closed")
        #expect(after == baseline)
        try await witness.confirm()
        #expect(try await daemon.terminate() == 0)
    }

    @Test("Connections past --max-connections-per-uid are closed at once, and served again once others leave")
    func connectionsPerUID() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: ["--max-connections-per-uid", "3"])
        let witness = try await Witness.connect(to: daemon, session: "main")
        let call = try callMessage("org.varlink.service.GetInfo")
        var admitted: [UnixStreamSocket] = []
        for _ in 0..<2 {
            let client = try await UnixStreamSocket.connect(to: daemon.socketPath)
            await client.write(call)
            #expect(try await client.readMessages(1).count == 1)
            admitted.append(client)
        }
        let refused = try await UnixStreamSocket.connect(to: daemon.socketPath)
        await refused.write(call)
        let (answer, _) = try await refused.readUntilClosed()
        #expect(answer.isEmpty, "the fourth connection of this user is closed unanswered")
        admitted[0].close()
        // Once the daemon has let the first one go, a new connection is served; until then it is refused too.
        try await withTimeout(.seconds(20), "a connection to be admitted again") {
            while true {
                let retry = try await UnixStreamSocket.connect(to: daemon.socketPath)
                await retry.write(call)
                if try await retry.readMessages(1).count == 1 { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await witness.confirm()
        #expect(try await daemon.terminate() == 0)
    }
}

/// The test process's own limits.
enum ProcessLimits {
    /// Raises the soft limit on open files to at least `count` (as far as the hard limit allows).
    static func raiseOpenFiles(to count: Int) throws {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { throw TimedOut(what: "getrlimit") }
        guard limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
        guard setrlimit(resource, &limit) == 0, limit.rlim_cur >= rlim_t(count) else {
            throw TimedOut(what: "an open-file limit of \(count) (the hard limit is \(limit.rlim_max))")
        }
    }
}
