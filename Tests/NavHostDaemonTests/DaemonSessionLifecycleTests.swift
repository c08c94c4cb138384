import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// Sessions opened and closed over the wire: `OpenSession`, `CloseSession` and `WatchSessions` on the real daemon.
/// That they survive kill -9 is in `DaemonDurabilityTests+Sessions.swift`.
@Suite("Sessions opened and closed over the socket")
struct DaemonSessionLifecycleTests {
    @Test("WatchSessions lists the sessions, then reports each one opened and closed; the closed one's Watch ends")
    func watchTheList() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main", "kiosk=settings.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        let listClient = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let list = WatchRecorder(listClient.callMore("io.navhost.Navigation.WatchSessions", parameters: [:]))
        #expect(try await list.next()["sessions"] == ["kiosk", "main"])

        let opened = try await nav.call(
            "OpenSession",
            ["name": "passenger", "root": "profile.user", "parameters": ["userID": "u2"]]
        )
        #expect(opened["snapshot"]?["stack"]?.arrayValue?.first?["parameters"] == ["userID": "u2"])
        #expect(try await list.next()["event"] == ["kind": "opened", "name": "passenger"])
        let follower = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(follower.watch(session: "passenger"))
        _ = try await updates.next { $0["snapshot"] != nil }

        try await nav.call("CloseSession", ["name": "passenger"])

        #expect(try await list.next()["event"] == ["kind": "closed", "name": "passenger"])
        #expect(try await PluginsWatch.eventually { updates.all.count >= 1 && updates.ended })
        #expect(try await nav.call("Sessions")["sessions"] == ["kiosk", "main"])
        try await daemon.terminate()
    }

    @Test(
        "A stopping daemon ends every watch with ServiceShuttingDown, which a client tells from a session closed ({})"
    )
    func stopEndsWatchesWithShuttingDown() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("OpenSession", ["name": "kiosk", "root": "settings.main"])
        let calls: [(method: String, parameters: JSONObject)] = [
            ("io.navhost.Navigation.Watch", ["session": "main"]),
            ("io.navhost.Navigation.Watch", ["session": "main", "changes": "merge-patch"]),
            ("io.navhost.Navigation.WatchSessions", [:]),
            ("io.navhost.Plugins.Watch", [:]),
            ("io.navhost.Navigation.Watch", ["session": "kiosk"]),
        ]
        var endings: [Task<String, any Error>] = []
        for call in calls {
            let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
            let (started, start) = AsyncStream.makeStream(of: Void.self)
            endings.append(
                Task {
                    var last: JSONObject = [:]
                    do {
                        for try await reply in client.callMore(call.method, parameters: call.parameters) {
                            start.yield()
                            last = reply
                        }
                    } catch let error as VarlinkError {
                        return error.name
                    }
                    return "\(last)"
                }
            )
            for await _ in started { break }
        }

        try await nav.call("CloseSession", ["name": "kiosk"])
        let closed = try await endings[4].value
        #expect(closed == "\(JSONObject())", "a closed session's watch ends with {}: \(closed)")
        try await daemon.terminate()
        for (index, ending) in endings.prefix(4).enumerated() {
            let last = try await ending.value
            #expect(
                last == "io.navhost.varlink.ServiceShuttingDown",
                "\(calls[index].method) \(calls[index].parameters): \(last)"
            )
        }
    }

    @Test("Bad opens and closes are refused with typed errors and change nothing")
    func refusals() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("OpenSession", ["name": "passenger", "root": "products.list"])

        let cases: [(method: String, parameters: JSONObject, error: String)] = [
            ("OpenSession", ["name": "passenger", "root": "home.main"], "SessionExists"),
            ("OpenSession", ["name": "main", "root": "home.main"], "SessionConfigured"),
            ("OpenSession", ["name": ".hidden", "root": "home.main"], "InvalidSessionName"),
            ("OpenSession", ["name": "a/b", "root": "home.main"], "InvalidSessionName"),
            (
                "OpenSession", ["name": .string(String(repeating: "x", count: 65)), "root": "home.main"],
                "InvalidSessionName"
            ),
            ("OpenSession", ["name": "nowhere", "root": "orders.list"], "RouteNotFound"),
            ("OpenSession", ["name": "nobody", "root": "profile.user"], "InvalidRouteParameters"),
            ("CloseSession", ["name": "main"], "SessionConfigured"),
            ("CloseSession", ["name": "ghost"], "SessionNotFound"),
        ]
        for refusal in cases {
            let error = await #expect(throws: VarlinkError.self, "\(refusal)") {
                try await nav.call(refusal.method, refusal.parameters)
            }
            #expect(error?.name == "io.navhost.Navigation.\(refusal.error)", "\(refusal)")
        }
        let badOption = await #expect(throws: VarlinkError.self) {
            try await nav.call("OpenSession", ["name": "tiny", "root": "home.main", "options": ["maxStackDepth": 0]])
        }
        #expect(badOption?.name == "org.varlink.service.InvalidParameter")
        #expect(try await nav.call("Sessions")["sessions"] == ["main", "passenger"])
        #expect(try await nav.routes(session: "passenger") == ["products.list"])
        #expect(!FileManager.default.fileExists(atPath: "\(daemon.stateDirectory)/sessions/nowhere.json"))
        try await daemon.terminate()
    }

    @Test(
        "Opened again after a close, a session starts at its root; its revisions and screen IDs continue past the old"
    )
    func reopenedSessionContinuesRevisions() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("OpenSession", ["name": "tv", "root": "products.list"])
        try await nav.call("Navigate", ["session": "tv", "route": "settings.main"])
        let before = try #require(try await nav.snapshot(session: "tv")["revision"]?.intValue)
        let oldIDs = try await nav.snapshot(session: "tv")["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(oldIDs == ["s1", "s2"])
        try await nav.call("CloseSession", ["name": "tv"])

        let reopened = try await nav.call("OpenSession", ["name": "tv", "root": "home.main"])
        try await nav.call("Navigate", ["session": "tv", "route": "settings.main"])

        #expect(reopened["snapshot"]?["stack"]?.arrayValue?.compactMap { $0["route"]?.stringValue } == ["home.main"])
        let revision = try #require(reopened["snapshot"]?["revision"]?.intValue)
        #expect(revision > before, "revisions only grow: \(before) then \(revision)")
        // A screen ID kept from the closed session reaches no screen of the new one.
        let newIDs = try await nav.snapshot(session: "tv")["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(newIDs == ["s3", "s4"])
        let stale = await #expect(throws: VarlinkError.self) {
            try await nav.call("Send", ["session": "tv", "screen": "s2", "intent": "onTappedRetry"])
        }
        #expect(stale?.name == "io.navhost.Navigation.ScreenNotFound")
        // A client resuming its watch of the old session from its last revision gets a snapshot of the new one.
        let watcher = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(watcher.watch(session: "tv", resumeFrom: before))
        let first = try await updates.next()
        #expect(first["snapshot"]?["stack"]?.arrayValue?.count == 2, "\(first)")

        // Closed and opened again across a kill -9, it goes on past those too.
        try await nav.call("CloseSession", ["name": "tv"])
        try await daemon.crash()
        try await daemon.restart()
        let afterRestart = try await NavigationClient.connect(to: daemon)
        let third = try await afterRestart.call("OpenSession", ["name": "tv", "root": "home.main"])
        #expect(third["snapshot"]?["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["s5"], "\(third)")
        try await daemon.terminate()
    }

    @Test("A configured session whose root route is not offered is SessionNotFound with the reason; others are not")
    func configuredSessionThatCannotOpen() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main", "kiosk=products.nope"])
        let nav = try await NavigationClient.connect(to: daemon)
        let configured = await #expect(throws: VarlinkError.self) {
            try await nav.call("Navigate", ["session": "kiosk", "route": "products.list"])
        }
        #expect(configured?.name == "io.navhost.Navigation.SessionNotFound")
        #expect(configured?.parameters["session"] == "kiosk")
        let reason = configured?.parameters["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("declared by the configuration, but its root route cannot be opened now"), "\(reason)")
        // Why, and what to do: the route no plugin offers, and where a configured session's root is given.
        #expect(reason.contains(#"no loaded feature offers route "products.nope""#), "\(reason)")
        #expect(reason.contains("navhostd --session kiosk=ROUTE"), "\(reason)")
        let unknown = await #expect(throws: VarlinkError.self) {
            try await nav.call("Navigate", ["session": "ghost", "route": "products.list"])
        }
        #expect(unknown?.parameters == ["session": "ghost"], "a name nothing declares has no reason")
        try await daemon.terminate()
    }

    @Test("OpenSession and CloseSession calls for one name, sent at once, run one after the other")
    func callsForOneNameAreSerialized() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main"])
        let clients = try await withThrowingTaskGroup(of: NavigationClient.self) { group in
            for _ in 0..<6 { group.addTask { try await NavigationClient.connect(to: daemon) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let outcomes = await withTaskGroup(of: String.self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    let method = index % 2 == 0 ? "OpenSession" : "CloseSession"
                    let parameters: JSONObject =
                        index % 2 == 0 ? ["name": "shared", "root": "settings.main"] : ["name": "shared"]
                    do {
                        try await client.call(method, parameters)
                        return "\(method) ok"
                    } catch let error as VarlinkError {
                        return "\(method) \(error.name)"
                    } catch {
                        return "\(method) \(error)"
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Whatever the order, every call got a clear answer, and the list and the sessions agree.
        for outcome in outcomes {
            #expect(
                outcome.hasSuffix(" ok") || outcome.hasSuffix("SessionExists") || outcome.hasSuffix("SessionNotFound"),
                "\(outcomes)"
            )
        }
        let opens = outcomes.filter { $0 == "OpenSession ok" }.count
        let closes = outcomes.filter { $0 == "CloseSession ok" }.count
        #expect(opens - closes == 0 || opens - closes == 1, "\(outcomes)")
        let open = try await clients[0].call("Sessions")["sessions"]?.arrayValue?.contains("shared") == true
        #expect(open == (opens - closes == 1), "\(outcomes)")
        try await daemon.crash()
        try await daemon.restart()
        let reader = try await NavigationClient.connect(to: daemon)
        #expect(try await reader.call("Sessions")["sessions"]?.arrayValue?.contains("shared") == open)
        try await daemon.terminate()
    }

    @Test("A session's options, its stack depth and intent time limits, hold for it alone, and after kill -9 too")
    func options() async throws {
        // The daemon's own time limit is off: only the session's can answer the intent that never returns.
        let plugins = try await TestPlugins.directory(fixtures: ["StallPlugin"])
        let daemon = try await DaemonProcess.start(
            plugins: plugins,
            sessions: ["main=home.main"],
            extraArguments: ["--intent-timeout", "off"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call(
            "OpenSession",
            ["name": "small", "root": "home.main", "options": ["maxStackDepth": 2, "intentTimeoutMilliseconds": 300]]
        )
        try await nav.call("Navigate", ["session": "small", "route": "stall.main"])
        try await Self.expectSmallSessionsOptions(daemon, "before the kill")
        try await nav.call("Navigate", ["route": "settings.main"])
        try await nav.call("Navigate", ["route": "products.list"])
        #expect(try await nav.routes() == ["home.main", "settings.main", "products.list"])

        // Kept in the list of opened sessions, the options come back with the session (before, no test looked).
        try await daemon.crash()
        try await daemon.restart()
        let reader = try await NavigationClient.connect(to: daemon)
        #expect(try await reader.routes(session: "small") == ["home.main", "stall.main"])
        try await Self.expectSmallSessionsOptions(daemon, "after the restart")
        try await reader.call("Navigate", ["route": "stall.main"])
        #expect(try await reader.routes() == ["home.main", "settings.main", "products.list", "stall.main"])
        try await daemon.terminate()
    }

    /// Checks that session `small`, at `stall.main` above its root, applies the options ``options()`` opened it with:
    /// a third screen is refused (`maxStackDepth` 2), and the intent that never returns is answered `IntentTimedOut`
    /// (`intentTimeoutMilliseconds` 300; the daemon's own limit is off, so without the session's the call would hang
    /// until the test gives up). Each on a connection of its own: a call that hangs holds its connection.
    private static func expectSmallSessionsOptions(_ daemon: DaemonProcess, _ when: Comment) async throws {
        let nav = try await NavigationClient.connect(to: daemon)
        let sender = try await NavigationClient.connect(to: daemon)
        let refused = await #expect(throws: VarlinkError.self, when) {
            try await nav.call("Navigate", ["session": "small", "route": "products.list"])
        }
        #expect(refused?.name == "io.navhost.Navigation.StackTooDeep", when)
        #expect(refused?.parameters["limit"] == 2, when)
        let timedOut = await #expect(throws: VarlinkError.self, when) {
            try await withTimeout(.seconds(60), "the session's intent time limit") {
                try await sender.call("Send", ["session": "small", "intent": "onTappedWait"])
            }
        }
        #expect(timedOut?.name == "io.navhost.Navigation.IntentTimedOut", when)
    }
}
