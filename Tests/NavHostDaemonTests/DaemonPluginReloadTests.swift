import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// `io.navhost.Plugins.Load`, `Reload` and `Unload` against the real daemon, with a session showing the plugin.
@Suite("Reloading and unloading plugins in the running daemon")
struct DaemonPluginReloadTests {
    /// The plugins folder is not followed: these tests change it and then act by hand (Reload, SIGHUP).
    static let byHandOnly = ["--no-watch-plugins"]

    /// Calls `io.navhost.Plugins.<method>` on a connection of its own.
    @discardableResult
    static func plugins(_ daemon: DaemonProcess, _ method: String, _ parameters: JSONObject = [:]) async throws
        -> JSONObject
    {
        let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        defer { Task { try? await client.close() } }
        return try await client.call("io.navhost.Plugins.\(method)", parameters: parameters)
    }

    /// `io.navhost.Plugins.List`'s entry for `name`.
    static func listed(_ name: String, in daemon: DaemonProcess) async throws -> JSONValue? {
        try await plugins(daemon, "List")["plugins"]?.arrayValue?.first { $0["name"]?.stringValue == name }
    }

    /// Waits until the top screen, the product list, has loaded its products.
    static func waitForProducts(_ nav: NavigationClient) async throws {
        if try await pollUntil({ try await nav.topState()["value"]?["totalCount"]?.intValue ?? 0 > 0 }) { return }
        throw TimedOut(what: "the product list to load: \(try await nav.topState())")
    }

    @Test("Reload while a session shows the plugin: same stack, a fresh image, the next intent is answered")
    func reloadKeepsTheStack() async throws {
        let directory = try await TestPlugins.directory()
        let daemon = try await DaemonProcess.start(plugins: directory, extraArguments: Self.byHandOnly)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Send", ["intent": "onTappedProducts"])
        try await Self.waitForProducts(nav)
        let before = try await nav.snapshot()
        let beforeIDs = before["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        let revisionBefore = try #require(before["revision"]?.intValue)
        let watcher = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(watcher.watch(resumeFrom: Int64(revisionBefore)))

        let reply = try await Self.plugins(daemon, "Reload", ["name": "Products"])

        #expect(reply["plugin"]?["state"] == "loaded")
        #expect(reply["plugin"]?["path"]?.stringValue?.hasSuffix("/plugin-images/Products-2.so") == true)
        let swap = try await updates.next { $0["event"] != nil }
        #expect(swap["event"]?["kind"] == "replaced", "one change for the swap")
        #expect(swap["event"]?["revision"]?.intValue == revisionBefore + 1)
        #expect(swap["event"]?["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == beforeIDs)
        #expect(try await nav.routes() == ["home.main", "products.list"])
        try await Self.waitForProducts(nav)
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        #expect(try await nav.topState()["value"]?["filter"] == "engine", "the new build answers the next intent")
        try await daemon.terminate()
    }

    @Test("An intent in flight during a Reload navigates once: the old ViewModel's push is dropped, after kill -9 too")
    func intentDuringReloadNavigatesOnce() async throws {
        let directory = try await TestPlugins.directory()
        let daemon = try await DaemonProcess.start(plugins: directory, extraArguments: Self.byHandOnly)
        let nav = try await NavigationClient.connect(to: daemon)
        for round in 0..<30 {
            try await nav.call("Replace", ["routes": [["route": "home.main"]]])
            // The tap waits for the current user before it pushes: the Reload comes in while it does.
            async let tapped = nav.call("Send", ["intent": "onTappedProfile"])
            async let reloaded = Self.plugins(daemon, "Reload", ["name": "Home"])
            let answered: Bool
            do {
                _ = try await tapped
                answered = true
            } catch let error as VarlinkError where error.name == "io.navhost.Navigation.ScreenClosed" {
                answered = false
            }
            _ = try await reloaded
            let routes = try await nav.routes()
            #expect(routes.filter { $0 == "profile.user" }.count == (answered ? 1 : 0), "round \(round): \(routes)")
        }
        let stack = try await nav.routes()
        try await daemon.crash()
        try await daemon.restart()
        let afterRestart = try await NavigationClient.connect(to: daemon)
        #expect(try await afterRestart.routes() == stack)
        try await daemon.terminate()
    }

    @Test("An intent delivered again after each of many reloads keeps its one time limit, not one per delivery")
    func timeLimitAcrossReloads() async throws {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["StallPlugin"]),
            sessions: ["main=stall.main"],
            extraArguments: Self.byHandOnly + ["--intent-timeout", "2s"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        // A use case that never returns, sent once.
        let sending = Task { () -> (error: String?, at: ContinuousClock.Instant) in
            do {
                try await nav.call("Send", ["intent": "onTappedWait"])
                return (nil, .now)
            } catch let error as VarlinkError {
                return (error.name, .now)
            }
        }
        // A reload every half second for four seconds: each rebuilds the screen and delivers the intent again. Before,
        // each delivery started the limit afresh, and the intent was answered only 2 s after the last reload.
        for _ in 0..<8 {
            try await Task.sleep(for: .milliseconds(500))
            try await Self.plugins(daemon, "Reload", ["name": "Stall"])
        }
        let reloadsEnded = ContinuousClock.now
        let answer = try await sending.value
        #expect(answer.error == "io.navhost.Navigation.IntentTimedOut")
        #expect(answer.at < reloadsEnded, "answered within its limit, while the reloads went on")
        try await daemon.terminate()
    }

    @Test("The old ViewModel's work of an intent a Reload delivers again writes nothing to the store once rebuilt")
    func oldWorkOfARedeliveredIntentWritesNothing() async throws {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["StallPlugin"]),
            sessions: ["main=stall.main"],
            extraArguments: Self.byHandOnly + ["--intent-timeout", "5s"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        let observer = try await NavigationClient.connect(to: daemon)
        // Each delivery's work, once cancelled, writes to the store and appends what became of it here.
        let outcomes = try TestPaths.temporaryDirectory() + "/outcomes"
        let sending = Task { () -> String? in
            do {
                try await nav.call(
                    "Send",
                    ["intent": "onTappedSaveWhenCancelled", "arguments": ["outcomeFile": .string(outcomes)]]
                )
                return nil
            } catch let error as VarlinkError {
                return error.name
            }
        }
        #expect(try await pollUntil { try await observer.topState()["waiting"] == 1 })

        // The reload cancels the old work, which writes at once; the intent goes to the rebuilt screen, whose work
        // writes when its own time runs out.
        try await Self.plugins(daemon, "Reload", ["name": "Stall"])
        #expect(try await sending.value == "io.navhost.Navigation.IntentTimedOut")
        var lines: [String] = []
        _ = try await pollUntil {
            let text = (try? String(contentsOfFile: outcomes, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map(String.init)
            return lines.count >= 2
        }
        // Before: the old work's write was `written`, landing after the reload, though the intent it served was
        // answered by the rebuilt screen's work.
        #expect(lines == ["refused: CancellationError()", "refused: CancellationError()"])
        let stored = (try? String(contentsOfFile: "\(daemon.stateDirectory)/store/Stall.json", encoding: .utf8)) ?? ""
        #expect(!stored.contains("afterCancel"), "\(stored)")
        try await daemon.terminate()
    }

    @Test("A replacement with the wrong SHA-256 is refused: the old version serves and List says why")
    func brokenReplacementIsRefused() async throws {
        let directory = try await TestPlugins.directory()
        try TestPlugins.copyExample("Products", in: directory)
        let daemon = try await DaemonProcess.start(plugins: directory, extraArguments: Self.byHandOnly)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Send", ["intent": "onTappedProducts"])
        try await Self.waitForProducts(nav)
        try TestPlugins.breakChecksum(of: "Products", in: directory)

        let refusal = await #expect(throws: VarlinkError.self) {
            try await Self.plugins(daemon, "Reload", ["name": "Products"])
        }

        #expect(refusal?.name == "io.navhost.Plugins.PluginRefused")
        #expect(refusal?.parameters["code"] == "checksumMismatch")
        let listed = try #require(try await Self.listed("Products", in: daemon))
        #expect(listed["state"] == "loaded")
        #expect(listed["lastReloadFailure"]?["code"] == "checksumMismatch")
        try await Self.waitForProducts(nav)
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        #expect(try await nav.topState()["value"]?["filter"] == "engine", "the old build still answers")
        let missing = await #expect(throws: VarlinkError.self) {
            try await Self.plugins(daemon, "Reload", ["name": "Nope"])
        }
        #expect(missing?.name == "io.navhost.Plugins.PluginNotFound")
        #expect(missing?.parameters["unloadedFolder"] == nil, "no plugin of the name was unloaded by hand")
        try await daemon.terminate()
    }

    @Test("Unload pops the plugin's screens and those above; Load brings it back")
    func unloadPopsAndLoadReturns() async throws {
        let directory = try await TestPlugins.directory()
        let daemon = try await DaemonProcess.start(
            plugins: directory,
            sessions: ["main=settings.main"],
            extraArguments: Self.byHandOnly
        )
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "home.main"])
        try await nav.call("Navigate", ["route": "settings.main"])
        // Once the pushed screen's onAppear has loaded it: that load is a revision of its own, which came after the
        // revision read here now and then on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(30)
        while try await nav.topState()["status"] != "loaded" && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try await nav.topState()["status"] == "loaded")
        let revision = try #require(try await nav.snapshot()["revision"]?.intValue)

        try await Self.plugins(daemon, "Unload", ["name": "Home"])

        #expect(try await nav.routes() == ["settings.main"])
        #expect(try await nav.snapshot()["revision"]?.intValue == revision + 1)
        #expect(try await Self.listed("Home", in: daemon)?["state"] == "removed")
        let refused = await #expect(throws: VarlinkError.self) {
            try await Self.plugins(daemon, "Unload", ["name": "Settings"])
        }
        #expect(refused?.name == "io.navhost.Plugins.PluginRefused")
        let loaded = try await Self.plugins(daemon, "Load", ["path": .string("\(directory)/Home")])
        #expect(loaded["plugin"]?["state"] == "loaded")
        try await nav.call("Navigate", ["route": "home.main"])
        #expect(try await nav.routes() == ["settings.main", "home.main"])
        try await daemon.terminate()
    }

    @Test("SIGHUP unloads a plugin whose folder vanished and reloads one whose manifest digest changed")
    func sighupRescans() async throws {
        let directory = try await TestPlugins.directory()
        let daemon = try await DaemonProcess.start(
            plugins: directory,
            sessions: ["main=settings.main"],
            extraArguments: Self.byHandOnly
        )
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "home.main"])
        try FileManager.default.removeItem(atPath: "\(directory)/Home")
        try TestPlugins.copyExample("Settings", in: directory)
        try TestPlugins.breakChecksum(of: "Settings", in: directory, digit: "1")
        let count = daemon.notifications.count

        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)

        #expect(try await Self.listed("Home", in: daemon)?["state"] == "removed")
        #expect(try await nav.routes() == ["settings.main"])
        let settings = try #require(try await Self.listed("Settings", in: daemon))
        #expect(settings["state"] == "loaded")
        #expect(settings["lastReloadFailure"]?["code"] == "checksumMismatch", "the changed build was tried")
        try await daemon.terminate()
    }
}
