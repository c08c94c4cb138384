import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// What an intent answered `IntentTimedOut` did before the time ran out, the feature-store write it had under way then
// included: each holds after a kill -9 right after the error. The `Faulty` fixture's slow write takes half a second,
// so a reply that did not wait for it is followed by the kill long before it lands. And the close a `ScreenClosed`
// error reports holds after a kill -9 right after it, and so does the store write its intent had under way when its
// screen closed; waiting for that write holds neither the reply past the intent's limit nor the daemon's stop. Nor
// does the stop wait for a write that holds an `IntentTimedOut` reply.

extension DaemonDurabilityTests {
    @Test(
        "A Send answered IntentTimedOut keeps what its intent did before the time ran out, a store write under way then included, across kill -9 right after the error"
    )
    func timedOutSendsKeepWhatTheyDid() async throws {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"],
            extraArguments: ["--intent-timeout", "200ms"]
        )
        var nav = try await NavigationClient.connect(to: daemon)
        var lost: [String] = []
        let rounds = 6
        for round in 0..<rounds {
            _ = try await nav.call("Replace", ["routes": [["route": "faulty.main"]]])
            // Opens a screen, or sets the restorable note, and waits past the limit; or writes the store with a
            // write that takes longer than the limit (the time runs out with it under way).
            let text = "t\(round)"
            let (intent, arguments): (String, JSONValue) =
                switch round % 3 {
                case 0: ("onTappedOpenThenHang", [:])
                case 1: ("onChangedNoteThenHang", ["text": .string(text)])
                default: ("onChangedSavedSlowly", ["text": .string(text)])
                }
            let failure = await #expect(throws: VarlinkError.self) {
                try await nav.call("Send", ["intent": .string(intent), "arguments": arguments])
            }
            #expect(failure?.name == "io.navhost.Navigation.IntentTimedOut", "\(String(describing: failure))")
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            switch round % 3 {
            case 0:
                let routes = try await nav.routes()
                if routes != ["faulty.main", "faulty.main"] {
                    lost.append("round \(round): the screen the timed-out intent opened is gone: \(routes)")
                }
            case 1:
                let note = try await nav.topState()["note"]
                if note != .string(text) {
                    lost.append("round \(round): the note \(text) the timed-out intent set is gone: \(note ?? .null)")
                }
            default:
                let saved = try Self.storedValue("saved", of: "Faulty", in: daemon)
                if saved != .string(text) {
                    lost.append("round \(round): \(text), under way at the time-out, is not stored: \(saved ?? .null)")
                }
            }
        }
        print("durability of timed-out Sends: \(rounds) IntentTimedOut replies, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test(
        "A Send answered IntentTimedOut a moment after its intent opened a screen keeps that screen across kill -9 right after the error"
    )
    func timedOutSendCommitsBeforeItsError() async throws {
        // In timedOutSendsKeepWhatTheyDid the intent's change comes 200 ms before its limit, and the session's
        // background save has landed by the time the error goes out: that test stays green without the commit before
        // an IntentTimedOut reply (audit of session 52). Here each session's limit is 1 ms: the error goes out as the
        // screen the intent opened is being written, and only that commit holds it back until it is on disk.
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"]
        )
        var nav = try await NavigationClient.connect(to: daemon)
        var lost: [String] = []
        let rounds = 10
        for round in 0..<rounds {
            let name: JSONValue = .string("t\(round)")
            try await nav.call(
                "OpenSession",
                ["name": name, "root": "faulty.main", "options": ["intentTimeoutMilliseconds": 1]]
            )
            let failure = await #expect(throws: VarlinkError.self) {
                try await nav.call("Send", ["session": name, "intent": "onTappedOpenThenHang"])
            }
            #expect(failure?.name == "io.navhost.Navigation.IntentTimedOut", "\(String(describing: failure))")
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            let routes = try await nav.routes(session: "t\(round)")
            if routes != ["faulty.main", "faulty.main"] {
                lost.append("round \(round): the screen the timed-out intent opened is gone: \(routes)")
            }
        }
        print("durability of IntentTimedOut at 1 ms: \(rounds) replies, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test(
        "A Send answered ScreenClosed, its screen closed by another client's call, finds the screen gone after kill -9 right after the error"
    )
    func closedScreenSendsKeepTheClose() async throws {
        // What the intent did to the session before its screen closed (a screen it opened above its own, the note it
        // set) went with the screen: the call that closed it removed every screen above it too, and wrote that. What
        // the error says is that the screen left the stack: the reply commits the session first, so that a restart
        // does not bring it back, whether or not the closing call was answered yet. Probabilistic: without that
        // commit, a round catches it only when the kill comes before the closing call's own write lands.
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"]
        )
        var sender = try await NavigationClient.connect(to: daemon)
        var closer = try await NavigationClient.connect(to: daemon)
        var lost: [String] = []
        let rounds = 10
        for round in 0..<rounds {
            _ = try await sender.call("Replace", ["routes": [["route": "faulty.main"], ["route": "faulty.main"]]])
            // The intent opens a screen above its own and waits, or sets its note and waits.
            let opens = round.isMultiple(of: 2)
            let note = "c\(round)"
            let sending = Task { [sender] () -> VarlinkError? in
                do {
                    if opens {
                        try await sender.call("Send", ["intent": "onTappedOpenThenHang"])
                    } else {
                        try await sender.call(
                            "Send",
                            ["intent": "onChangedNoteThenHang", "arguments": ["text": .string(note)]]
                        )
                    }
                    return nil
                } catch {
                    return error as? VarlinkError
                }
            }
            let started = try await pollUntil {
                let stack = try await closer.snapshot()["stack"]?.arrayValue ?? []
                return opens ? stack.count == 3 : stack.last?["state"]?["note"] == .string(note)
            }
            try #require(started, "round \(round): the intent did not start")
            // The closing call's answer is not waited for: the kill follows the ScreenClosed error alone.
            let closing = Task { [closer] in try? await closer.call(opens ? "PopToRoot" : "Pop") }
            let failure = await sending.value
            try await daemon.crash()
            _ = await closing.value
            #expect(
                failure?.name == "io.navhost.Navigation.ScreenClosed",
                "round \(round): \(String(describing: failure))"
            )
            try await daemon.restart()
            sender = try await NavigationClient.connect(to: daemon)
            closer = try await NavigationClient.connect(to: daemon)
            let stack = try await sender.snapshot()["stack"]?.arrayValue ?? []
            if stack.count != 1 || stack.first?["state"]?["note"] != "" {
                let shown = stack.map { "\($0["route"] ?? .null) \($0["state"]?["note"] ?? .null)" }
                lost.append("round \(round): the screen ScreenClosed said had left came back: \(shown)")
            }
        }
        print("durability of ScreenClosed: \(rounds) ScreenClosed replies, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test(
        "A Send answered ScreenClosed, another client having popped its screen with the intent's store write under way, finds the write stored after kill -9 right after the error"
    )
    func closedScreenSendsKeepTheirStoreWrite() async throws {
        // The intent sets its note (the closer waits to see it: the write began in the same stretch), then writes the
        // store in a write of one second; the closer pops the screen under it. The reply waits for that write, so a
        // kill -9 right after it finds the value stored. Before session 51 the reply went out at once, and the kill
        // came long before the write landed.
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"]
        )
        var sender = try await NavigationClient.connect(to: daemon)
        var closer = try await NavigationClient.connect(to: daemon)
        var lost: [String] = []
        let rounds = 4
        for round in 0..<rounds {
            _ = try await sender.call("Replace", ["routes": [["route": "faulty.main"], ["route": "faulty.main"]]])
            let text = "w\(round)"
            let sending = Task { [sender] in
                await Self.failure {
                    try await sender.call(
                        "Send",
                        ["intent": "onChangedNoteThenSavedInASecond", "arguments": ["text": .string(text)]]
                    )
                }
            }
            let started = try await pollUntil { try await closer.topState()["note"] == .string(text) }
            try #require(started, "round \(round): the intent did not start")
            // The pop's answer is not waited for: the kill follows the ScreenClosed error alone.
            let closing = Task { [closer] in try? await closer.call("Pop") }
            let failure = await sending.value
            try await daemon.crash()
            _ = await closing.value
            #expect(
                failure?.name == "io.navhost.Navigation.ScreenClosed",
                "round \(round): \(String(describing: failure))"
            )
            try await daemon.restart()
            sender = try await NavigationClient.connect(to: daemon)
            closer = try await NavigationClient.connect(to: daemon)
            let saved = try Self.storedValue("saved", of: "Faulty", in: daemon)
            if saved != .string(text) {
                lost.append("round \(round): \(text), under way at the close, is not stored: \(saved ?? .null)")
            }
        }
        print("durability of ScreenClosed store writes: \(rounds) replies, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test(
        "A Send whose screen another client popped while its store write never ends is answered ScreenClosed at the intent's time limit"
    )
    func closedScreenWaitsForAStoreWriteNoLongerThanTheTimeLimit() async throws {
        // Long enough for the pop to come before it under load: a limit run out first answers IntentTimedOut, whose
        // own wait for the write has no end.
        let limit = Duration.seconds(5)
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"],
            extraArguments: ["--intent-timeout", "5s"]
        )
        let sender = try await NavigationClient.connect(to: daemon)
        let closer = try await NavigationClient.connect(to: daemon)
        _ = try await sender.call("Replace", ["routes": [["route": "faulty.main"], ["route": "faulty.main"]]])
        let sent = ContinuousClock.now
        let sending = Task { [sender] in
            await Self.failure {
                try await sender.call(
                    "Send",
                    ["intent": "onChangedNoteThenSavedInAnHour", "arguments": ["text": "never"]]
                )
            }
        }
        try #require(try await pollUntil { try await closer.topState()["note"] == "never" })
        _ = try await closer.call("Pop")
        // Bounds the test only: without the limit's end of the wait, the reply never comes.
        let failure = try await withTimeout(.seconds(60), "the ScreenClosed reply") { await sending.value }
        let waited = ContinuousClock.now - sent
        #expect(failure?.name == "io.navhost.Navigation.ScreenClosed", "\(String(describing: failure))")
        // It waited for the write: no sooner than the limit, which began after `sent`; and no longer than the limit
        // (with 5 s for a loaded machine's start of the call and its reply): the limit ended the wait.
        #expect(waited >= limit)
        #expect(waited < limit + .seconds(5), "answered after \(waited)")
        #expect(try await closer.routes() == ["faulty.main"])
        #expect(try await daemon.terminate() == 0)
    }

    /// What closes the screen under an intent whose store write never ends, for
    /// ``storeWriteThatNeverEndsDoesNotHoldTheStop(closer:)``.
    enum ScreenCloser: String, CustomTestStringConvertible, Sendable {
        /// Another client pops it: the reply waits before the stop begins.
        case pop
        /// Another client closes its session (opened over the wire): the stop no longer closes that session.
        case closeSession
        /// Nothing before the stop: the stop's own close of the sessions closes it, and the reply's wait begins then,
        /// within the stop's grace, which ends it.
        case theStop

        var testDescription: String { rawValue }
    }

    @Test(
        "SIGTERM while a ScreenClosed reply waits for a store write that never ends stops the daemon after the stop's 5 s grace: the screen popped, its session closed by CloseSession, or closed by the stop itself",
        arguments: [ScreenCloser.pop, .closeSession, .theStop]
    )
    func storeWriteThatNeverEndsDoesNotHoldTheStop(closer screenCloser: ScreenCloser) async throws {
        // The intent's limit (two minutes) is far beyond the terminate's bound: the stop ends the wait. A session
        // closed by CloseSession is no longer among those the stop closes; its wait is ended all the same.
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"],
            extraArguments: ["--intent-timeout", "120s"]
        )
        let sender = try await NavigationClient.connect(to: daemon)
        let closer = try await NavigationClient.connect(to: daemon)
        let session = screenCloser == .closeSession ? "kiosk" : "main"
        if screenCloser == .closeSession {
            _ = try await closer.call("OpenSession", ["name": "kiosk", "root": "faulty.main"])
        }
        _ = try await sender.call(
            "Replace",
            ["session": .string(session), "routes": [["route": "faulty.main"], ["route": "faulty.main"]]]
        )
        let sending = Task { [sender] in
            await Self.failure {
                try await sender.call(
                    "Send",
                    [
                        "session": .string(session), "intent": "onChangedNoteThenSavedInAnHour",
                        "arguments": ["text": "never"],
                    ]
                )
            }
        }
        // The note is set in the stretch that begins the write: the write is under way.
        try #require(try await pollUntil { try await closer.topState(session: session)["note"] == "never" })
        switch screenCloser {
        case .pop: _ = try await closer.call("Pop")
        case .closeSession: _ = try await closer.call("CloseSession", ["name": "kiosk"])
        case .theStop: break
        }
        // Bounded by the terminate's 30 s, a quarter of the intent's limit: before session 51 nothing waited; with the
        // wait and no end of it by the stop, the daemon stopped only after the limit. Closed by the stop, the screen's
        // reply begins its wait within the stop's grace, and the grace's end ends it with the others.
        #expect(try await daemon.terminate() == 0)
        let failure = await sending.value
        // Answered ScreenClosed as the stop ends the wait, or not answered when the connection closed first.
        #expect(
            failure?.name == "io.navhost.Navigation.ScreenClosed" || failure == nil,
            "\(String(describing: failure))"
        )
    }

    @Test(
        "SIGTERM while an IntentTimedOut reply waits for a store write that never ends stops the daemon after the stop's 5 s grace"
    )
    func timedOutStoreWriteThatNeverEndsDoesNotHoldTheStop() async throws {
        let (daemon, sending) = try await Self.timedOutSendWaitingForItsWrite(
            "onChangedNoteThenSavedInAnHour",
            text: "never",
            limit: "1s"
        )
        // Bounded by the terminate's 30 s: before session 51 the stop waited for the write, an hour.
        #expect(try await daemon.terminate() == 0)
        let failure = await sending.value
        // Answered IntentTimedOut as the stop ends the wait, or not answered when the connection closed first.
        #expect(
            failure?.name == "io.navhost.Navigation.IntentTimedOut" || failure == nil,
            "\(String(describing: failure))"
        )
    }

    @Test(
        "SIGTERM while an IntentTimedOut reply waits for a one-second store write lets the write land before the reply and the exit"
    )
    func timedOutStoreWriteUnderWayAtTheStopLands() async throws {
        // The stop ends the waits for store writes only after a grace (5 s), so that a write that ends within it is on
        // disk before the reply that says what the intent did stays: ended at once, the process exited before the
        // write's rename, and the reply said IntentTimedOut without it.
        let (daemon, sending) = try await Self.timedOutSendWaitingForItsWrite(
            "onChangedNoteThenSavedInASecond",
            text: "lands",
            limit: "200ms"
        )
        #expect(try await daemon.terminate() == 0)
        let failure = await sending.value
        #expect(failure?.name == "io.navhost.Navigation.IntentTimedOut", "\(String(describing: failure))")
        let saved = try Self.storedValue("saved", of: "Faulty", in: daemon)
        #expect(saved == .string("lands"), "the write under way at the stop: \(saved ?? .null)")
    }

    /// Starts a daemon with the `Faulty` fixture and an intent time limit of `limit`, sends `intent` with `text`, and
    /// returns once its time ran out with its store write under way and the reply waits for that write, as the
    /// daemon's log says: the daemon, and the `Send`'s error to come (`nil` for none, or a connection that closed).
    static func timedOutSendWaitingForItsWrite(
        _ intent: String,
        text: String,
        limit: String
    ) async throws -> (DaemonProcess, Task<VarlinkError?, Never>) {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"],
            extraArguments: ["--intent-timeout", limit]
        )
        let sender = try await NavigationClient.connect(to: daemon)
        let sending = Task { [sender] in
            await Self.failure {
                try await sender.call("Send", ["intent": .string(intent), "arguments": ["text": .string(text)]])
            }
        }
        try #require(
            try await pollUntil {
                daemon.log.split(separator: "\n").contains { line in
                    line.contains("Waiting for the store writes") && line.contains("its IntentTimedOut reply")
                }
            },
            "\(daemon.log)"
        )
        return (daemon, sending)
    }

    /// The Varlink error `call` threw; `nil` when it returned, or threw anything else (a connection that closed).
    static func failure(of call: () async throws -> JSONObject) async -> VarlinkError? {
        do {
            _ = try await call()
            return nil
        } catch {
            return error as? VarlinkError
        }
    }

    /// The value stored under `key` in the store file of feature `feature`; `nil` when the file or the key is not
    /// there.
    static func storedValue(_ key: String, of feature: String, in daemon: DaemonProcess) throws -> JSONValue? {
        let path = "\(daemon.stateDirectory)/store/\(feature).json"
        guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONParser().parse(Array(bytes))[key]
    }
}
