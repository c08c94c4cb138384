import Foundation
import Glibc
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// io.navhost.Plugins.Load and Unload are acknowledged calls like any other: a plugin whose loading was answered is
// loaded after a restart, kill -9 or not, and one whose unloading was answered is not, whatever its folder holds.

extension DaemonDurabilityTests {
    /// A plugins folder with the example plugins but UserProfile, which is in a folder of its own beside it.
    struct SplitPlugins {
        let plugins: String
        let elsewhere: String

        init() async throws {
            plugins = try await TestPlugins.directory()
            elsewhere = (plugins as NSString).deletingLastPathComponent + "/elsewhere"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: "\(plugins)/UserProfile", toPath: "\(elsewhere)/UserProfile")
        }
    }

    /// The state of each plugin `io.navhost.Plugins.List` lists, by name; a plugin listed twice has its states
    /// joined (`loaded, removed`), which no expectation here accepts.
    static func pluginStates(_ daemon: DaemonProcess) async throws -> [String: String] {
        let rows = try await DaemonPluginReloadTests.plugins(daemon, "List")["plugins"]?.arrayValue ?? []
        var states: [String: String] = [:]
        for row in rows {
            guard let name = row["name"]?.stringValue, let state = row["state"]?.stringValue else { continue }
            states[name] = states[name].map { "\($0), \(state)" } ?? state
        }
        return states
    }

    @Test(
        "A plugin loaded by hand from another folder and one unloaded by hand stay so after kill -9, SIGHUP and a restart"
    )
    func pluginsByHandSurviveRestarts() async throws {
        let folders = try await SplitPlugins()
        let daemon = try await DaemonProcess.start(plugins: folders.plugins, extraArguments: Self.slowStateWrites)
        try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        let loaded = try await DaemonPluginReloadTests.plugins(
            daemon,
            "Load",
            ["path": .string("\(folders.elsewhere)/UserProfile")]
        )
        #expect(loaded["plugin"]?["state"] == "loaded")

        try await daemon.crash()
        try await daemon.restart()

        var states = try await Self.pluginStates(daemon)
        #expect(states["Settings"] == "removed", "\(states)")
        #expect(states["UserProfile"] == "loaded", "\(states)")
        let settings = try await DaemonPluginReloadTests.listed("Settings", in: daemon)
        #expect(settings?["unloadedByHand"] == true, "List says why it stays removed: \(String(describing: settings))")
        #expect(settings?["path"] == .string("\(folders.plugins)/Settings"), "the folder a Load brings it back from")
        let userProfile = try await DaemonPluginReloadTests.listed("UserProfile", in: daemon)
        #expect(userProfile?["loadedByHand"] == true, "\(String(describing: userProfile))")
        #expect(userProfile?["folder"] == .string("\(folders.elsewhere)/UserProfile"))
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "profile.user", "parameters": ["userID": "u1"]])
        let missing = await #expect(throws: VarlinkError.self) {
            try await nav.call("Navigate", ["route": "settings.main"])
        }
        #expect(missing?.name == "io.navhost.Navigation.RouteNotFound")

        // A rescan, or a new build in its folder, leaves a plugin unloaded by hand alone.
        try TestPlugins.copyExample("Settings", in: folders.plugins)
        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        #expect(try await Self.pluginStates(daemon)["Settings"] == "removed")
        // A Reload or Unload of it is refused with the folder a Load brings it back from.
        for method in ["Reload", "Unload"] {
            let notFound = await #expect(throws: VarlinkError.self) {
                try await DaemonPluginReloadTests.plugins(daemon, method, ["name": "Settings"])
            }
            #expect(notFound?.name == "io.navhost.Plugins.PluginNotFound", "\(method)")
            #expect(notFound?.parameters["unloadedFolder"] == .string("\(folders.plugins)/Settings"), "\(method)")
        }

        // Loaded again by hand it is the folder's own again; unloaded, the other folder's is no longer loaded.
        try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(folders.plugins)/Settings")])
        // Who asked is logged with the folder: a load runs code the client chose.
        try await daemon.waitForLog("A control client asked to load a plugin")
        let asked = daemon.log.split(separator: "\n").last { $0.contains("A control client asked to load a plugin") }
        #expect(asked?.contains("navhost.plugin.folder=\(folders.plugins)/Settings") == true, "\(asked ?? "")")
        #expect(asked?.contains("varlink.peer.uid=\(geteuid())") == true, "\(asked ?? "")")
        try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "UserProfile"])
        // Killed right after the Unload's reply (a stop with SIGTERM until session 56: an audit found this Unload, of a
        // plugin loaded by hand from another folder, met a kill -9 only at random moments).
        try await daemon.crash()
        try await daemon.restart()

        states = try await Self.pluginStates(daemon)
        #expect(states["Settings"] == "loaded", "\(states)")
        #expect(states["UserProfile"] == nil, "\(states)")
        let overrides = try String(contentsOfFile: "\(daemon.stateDirectory)/plugin-overrides.json", encoding: .utf8)
        #expect(overrides.contains("\"loaded\":[]") && overrides.contains("\"unloaded\":[]"), "\(overrides)")
        try await daemon.terminate()
    }

    @Test("Load and Unload that cannot be written are refused with storageFailed and change nothing")
    func pluginsByHandUnwritable() async throws {
        let folders = try await SplitPlugins()
        let daemon = try await DaemonProcess.start(plugins: folders.plugins)
        // A folder where the file goes: every write of it fails, as on a read-only or full disk.
        let file = "\(daemon.stateDirectory)/plugin-overrides.json"
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true)

        let unload = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        }
        let load = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(
                daemon,
                "Load",
                ["path": .string("\(folders.elsewhere)/UserProfile")]
            )
        }

        for refusal in [unload, load] {
            #expect(refusal?.name == "io.navhost.Plugins.PluginRefused")
            #expect(refusal?.parameters["code"] == "storageFailed", "\(String(describing: refusal))")
        }
        var states = try await Self.pluginStates(daemon)
        #expect(states["Settings"] == "loaded" && states["UserProfile"] == nil, "\(states)")
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])

        // Unreadable at start: everything in the plugins folder loads, and Load and Unload are refused until it reads.
        _ = try await daemon.terminate()
        try await daemon.restart()
        let refused = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Products"])
        }
        #expect(refused?.parameters["code"] == "storageFailed")
        states = try await Self.pluginStates(daemon)
        #expect(states["Products"] == "loaded" && states["Settings"] == "loaded", "\(states)")
        _ = try await daemon.terminate()
        try FileManager.default.removeItem(atPath: file)
        try await daemon.restart()
        try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        #expect(try await Self.pluginStates(daemon)["Settings"] == "removed")
        try await daemon.terminate()
    }

    @Test("An Unload whose sessions cannot be saved after it is answered: what it answered is what a restart shows")
    func unloadWithUnsavableSession() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])
        // The session's files made folders: its next write fails, whichever file it goes to.
        for file in ["main.json", "main.journal"] {
            let path = "\(daemon.stateDirectory)/sessions/\(file)"
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }

        try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])

        #expect(try await Self.pluginStates(daemon)["Settings"] == "removed")
        #expect(try await nav.routes() == ["home.main"], "its screen went with it")
        try await daemon.crash()
        try await daemon.restart()
        #expect(try await Self.pluginStates(daemon)["Settings"] == "removed")
        let reader = try await NavigationClient.connect(to: daemon)
        #expect(try await reader.routes() == ["home.main"], "the saved stack is restored without its screen")
        try await daemon.terminate()
    }

    @Test("An answered Reload of another build, and the intents its code answers, hold after kill -9, three rounds")
    func reloadedScreensSurviveKill() async throws {
        // Settings 1.1.0 is other code: its defaults choose the dark theme where 1.0.0's choose the system's.
        let rebuilt = try await DaemonPluginRebuildTests.settings.value
        let original = "\(DaemonProcess.examplePlugins)/Settings"
        let (directory, daemon, firstClient) = try await DaemonPluginRebuildTests.startOnCopies()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        var nav = firstClient
        try await nav.call("Send", ["intent": "onChangedLanguage", "arguments": ["language": "fr"]])
        for (round, version) in ["1.1.0", "1.0.0", "1.1.0"].enumerated() {
            let theme = version == "1.1.0" ? "dark" : "system"
            if version == "1.1.0" {
                try PluginRebuilder.deploy(rebuilt, into: directory)
            } else {
                try TestPlugins.deploy(folder: original, as: "Settings", into: directory)
            }
            try await nav.call("Send", ["intent": "onChangedTheme", "arguments": ["theme": "light"]])
            let reply = try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Settings"])
            #expect(reply["plugin"]?["version"]?.stringValue == version, "round \(round)")
            // The screen the new code rebuilt: the state the old code left, which the restart must give back.
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            try await DaemonPluginRebuildTests.waitForSettings(nav)
            let serving = try await DaemonPluginReloadTests.plugins(daemon, "List")["plugins"]?.arrayValue?
                .first { $0["name"] == "Settings" }
            // The folder's build, as at any start: what the kill tests is the state below, which the Reload handed over.
            #expect(serving?["version"]?.stringValue == version, "round \(round): the folder's build serves")
            #expect(try await nav.routes() == ["settings.main"], "round \(round)")
            #expect(try await nav.topState()["value"]?["theme"] == "light", "round \(round)")
            #expect(try await nav.topState()["value"]?["language"] == "fr", "round \(round)")
            // The new code answers an intent; its answer holds too.
            try await nav.call("Send", ["intent": "onTappedResetToDefaults"])
            #expect(try await nav.topState()["value"]?["theme"]?.stringValue == theme, "round \(round)")
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            try await DaemonPluginRebuildTests.waitForSettings(nav)
            #expect(try await nav.topState()["value"]?["theme"]?.stringValue == theme, "round \(round) after kill -9")
            try await nav.call("Send", ["intent": "onChangedLanguage", "arguments": ["language": "fr"]])
        }
        try await daemon.terminate()
    }

    @Test("A Reload that removes a screen is on disk when it answers: a kill -9 right after it, ten rounds")
    func reloadThatRemovesAScreenSurvivesKill() async throws {
        // Settings 2.0.0 has no settings.main: a Reload to it removes that screen from the session, and keeps the
        // record from before aside (main.json.lost-…). A restart from that record would remove the screen again, and
        // keep a second record aside: the stack alone cannot tell whether the Reload's record was on disk.
        let withoutMain = try await DaemonPluginRebuildTests.settingsWithoutMain.value
        let original = "\(DaemonProcess.examplePlugins)/Settings"
        let (directory, daemon, firstClient) = try await DaemonPluginRebuildTests.startOnCopies(
            root: "home.main",
            extraArguments: Self.slowStateWrites
        )
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let sessions = "\(daemon.stateDirectory)/sessions"
        var nav = firstClient
        var lost: [String] = []
        var keptAside = 0
        let rounds = 10
        for round in 0..<rounds {
            if round > 0 {
                try TestPlugins.deploy(folder: original, as: "Settings", into: directory)
                try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Settings"])
            }
            _ = try await DaemonPluginRebuildTests.showSettings(nav)
            try PluginRebuilder.deploy(withoutMain, into: directory)
            let reply = try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Settings"])
            try await daemon.crash()
            #expect(reply["plugin"]?["lostAtReload"]?.arrayValue?.count == 1, "round \(round): \(reply)")
            try await daemon.restart()

            nav = try await NavigationClient.connect(to: daemon)
            #expect(try await nav.routes() == ["home.main"], "round \(round)")
            let aside = try FileManager.default.contentsOfDirectory(atPath: sessions).filter {
                $0.hasPrefix("main.json.lost-")
            }
            // One per Reload: a second this round is the restart's, from a record that still held the screen.
            if aside.count != keptAside + 1 {
                lost.append("round \(round): \(aside.count - keptAside) records kept aside by a Reload and a restart")
            }
            keptAside = aside.count
        }
        print("durability of a Reload that removes a screen: \(rounds) reloads, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test("A Reload whose build cannot read a screen's saved state is on disk when it answers: kill -9, six rounds")
    func reloadThatStartsAScreenFreshSurvivesKill() async throws {
        // Products 1.1.0 keeps its filter as `query`: a Reload to it starts the catalog fresh, with an empty filter,
        // and keeps the record from before aside. A restart from that record would start the screen fresh too, so the
        // stack alone cannot tell whether the Reload's record was on disk: the restart's warning that a saved state
        // no longer decodes does.
        let renamed = try await DaemonPluginRebuildTests.productsWithRenamedState.value
        let original = "\(DaemonProcess.examplePlugins)/Products"
        let (directory, daemon, firstClient) = try await DaemonPluginRebuildTests.startOnCopies(
            root: "home.main",
            extraArguments: Self.slowStateWrites
        )
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let warning = "A restored screen's saved state no longer decodes"
        var nav = firstClient
        try await nav.call("Navigate", ["route": "products.list"])
        var lost: [String] = []
        let rounds = 6
        for round in 0..<rounds {
            if round > 0 {
                try TestPlugins.deploy(folder: original, as: "Products", into: directory)
                try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Products"])
            }
            try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "ab"]])
            try PluginRebuilder.deploy(renamed, into: directory)
            let reply = try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Products"])
            try await daemon.crash()
            #expect(
                reply["plugin"]?["lostAtReload"]?[0]?["startedFresh"]?.arrayValue?.count == 1,
                "round \(round): \(reply)"
            )
            let warnings = daemon.log.components(separatedBy: warning).count
            try await daemon.restart()

            nav = try await NavigationClient.connect(to: daemon)
            #expect(try await nav.routes() == ["home.main", "products.list"], "round \(round)")
            // A second warning is the restart's, from the record from before the Reload, which the new build cannot
            // read either.
            if daemon.log.components(separatedBy: warning).count != warnings {
                lost.append("round \(round): the restart read the record from before the Reload")
            }
        }
        print("durability of a Reload that starts a screen fresh: \(rounds) reloads and kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test(
        "An Unload that takes a screen out of a session survives kill -9 right after its reply: the restart finds the session and the plugin without it; a Load that undoes it survives too"
    )
    func unloadThatRemovesAScreenSurvivesKill() async throws {
        // Unloading Settings takes settings.main out of the session. A restart from a record that still held it
        // would take it out again, and keep that record aside (main.json.lost-…), as a restart keeps any record with
        // screens it cannot show: the stack alone cannot tell whether the Unload's record was on disk. Without the
        // Unload's commit every round kept one aside (6 of 6, session 52). Every other round, settings.main is the
        // session's root.
        let (directory, daemon, firstClient) = try await DaemonPluginRebuildTests.startOnCopies(
            root: "home.main",
            extraArguments: Self.slowStateWrites
        )
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let sessions = "\(daemon.stateDirectory)/sessions"
        var nav = firstClient
        var lost: [String] = []
        let rounds = 4
        for round in 0..<rounds {
            if round > 0 {
                try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(directory)/Settings")])
            }
            if round.isMultiple(of: 2) {
                _ = try await DaemonPluginRebuildTests.showSettings(nav)
            } else {
                // Settings' screen as the session's root, alone on the stack: the Unload restarts the session at its
                // configured root, home.main (session 56: an audit found no kill test of that case).
                try await nav.call("Replace", ["routes": [["route": "settings.main"]]])
                try await DaemonPluginRebuildTests.waitForSettings(nav)
            }
            try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
            try await daemon.crash()
            try await daemon.restart()

            nav = try await NavigationClient.connect(to: daemon)
            #expect(try await nav.routes() == ["home.main"], "round \(round)")
            // The Unload's own write of the overrides, the last before the kill (every round after the first Loads what
            // the round before unloaded).
            let settings = try await DaemonPluginReloadTests.listed("Settings", in: daemon)
            #expect(settings?["state"] == "removed", "round \(round): \(String(describing: settings))")
            #expect(settings?["unloadedByHand"] == true, "round \(round): \(String(describing: settings))")
            let aside = try FileManager.default.contentsOfDirectory(atPath: sessions).filter {
                $0.hasPrefix("main.json.lost-")
            }
            if !aside.isEmpty {
                lost.append("round \(round): the restart kept aside a record that still showed settings.main: \(aside)")
                for file in aside { try FileManager.default.removeItem(atPath: "\(sessions)/\(file)") }
            }
        }
        print("durability of an Unload that removes a screen: \(rounds) unloads, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")

        // A Load that undoes the Unload, killed right after its reply: loaded after the restart, by the folder's rule
        // (a folder in the plugins folder: neither unloaded nor loaded by hand).
        try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(directory)/Settings")])
        try await daemon.crash()
        try await daemon.restart()
        let settings = try await DaemonPluginReloadTests.listed("Settings", in: daemon)
        #expect(settings?["state"] == "loaded", "\(String(describing: settings))")
        #expect(settings?["unloadedByHand"] == nil, "\(String(describing: settings))")
        #expect(settings?["loadedByHand"] == nil, "\(String(describing: settings))")
        nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])
        try await daemon.terminate()
    }

    @Test("At least 20 kill -9s while a client loads, reloads and unloads plugins: every answered call holds")
    func pluginLoadUnloadKills() async throws {
        let folders = try await SplitPlugins()
        let daemon = try await DaemonProcess.start(plugins: folders.plugins)
        var random = SeededRandom(seed: 20_261_127)
        // What the client was answered: whether each plugin it changes is loaded.
        var acknowledged = ["Settings": true, "UserProfile": false]
        var kills = 0
        var calls = 0
        var reloads = 0
        var lost: [String] = []
        // At least 20 kills and 40 answered calls: a loaded machine answers fewer calls between two kills (each load
        // hashes and copies a library), so it gets more kills rather than a thinner test (at most 100).
        while kills < 20 || (calls < 40 && kills < 100) {
            let pause = Duration.milliseconds(Int64(random.next() % 250) + 50)
            let seed = random.next()
            async let outcome = Self.drivePlugins(from: acknowledged, seed: seed, folders: folders, daemon: daemon)
            try await Task.sleep(for: pause)
            try await daemon.crash()
            let result = await outcome
            kills += 1
            calls += result.calls
            reloads += result.reloads
            try await daemon.restart()
            lost += result.refusals.map { "kill \(kills): \($0)" }
            let states = try await Self.pluginStates(daemon)
            for (name, isLoaded) in result.acknowledged {
                let found = states[name] == "loaded"
                if found != isLoaded, result.inFlight != name {
                    lost.append("kill \(kills): \(name) was answered as \(isLoaded ? "loaded" : "unloaded"): \(states)")
                }
                acknowledged[name] = found
            }
        }
        print(
            "durability, plugins: \(calls) answered loads, reloads (\(reloads)) and unloads, \(kills) kills, "
                + "\(lost.count) lost"
        )
        #expect(lost.isEmpty, "\(lost)")
        #expect(calls >= 40, "the client made \(calls) answered calls")
        #expect(reloads > 0, "the client made no answered reload")
        try await daemon.terminate()
    }

    /// What the plugins client had when the daemon died.
    private struct PluginsOutcome: Sendable {
        var acknowledged: [String: Bool]
        /// The plugin the unanswered call was about, if one was under way.
        var inFlight: String?
        var calls = 0
        var reloads = 0
        /// Error replies: the client only loads what it was answered as unloaded and the reverse, so none is right.
        var refusals: [String] = []
    }

    /// Loads, reloads and unloads Settings (of the plugins folder) and UserProfile (of another) at random, until the daemon
    /// dies.
    private static func drivePlugins(
        from acknowledged: [String: Bool],
        seed: UInt64,
        folders: SplitPlugins,
        daemon: DaemonProcess
    ) async -> PluginsOutcome {
        var random = SeededRandom(seed: seed)
        var outcome = PluginsOutcome(acknowledged: acknowledged)
        let paths = ["Settings": "\(folders.plugins)/Settings", "UserProfile": "\(folders.elsewhere)/UserProfile"]
        guard let client = try? await VarlinkClient.connect(unixSocketPath: daemon.socketPath) else { return outcome }
        do {
            while true {
                let name = random.next() % 2 == 0 ? "Settings" : "UserProfile"
                outcome.inFlight = name
                if outcome.acknowledged[name] == true, random.next() % 3 == 0 {
                    // A reload keeps it loaded, from a fresh image of the build in its folder.
                    _ = try await client.call("io.navhost.Plugins.Reload", parameters: ["name": .string(name)])
                    outcome.reloads += 1
                } else if outcome.acknowledged[name] == true {
                    _ = try await client.call("io.navhost.Plugins.Unload", parameters: ["name": .string(name)])
                    outcome.acknowledged[name] = false
                } else {
                    _ = try await client.call("io.navhost.Plugins.Load", parameters: ["path": .string(paths[name]!)])
                    outcome.acknowledged[name] = true
                }
                outcome.inFlight = nil
                outcome.calls += 1
            }
        } catch let error as VarlinkError {
            outcome.refusals.append("\(outcome.inFlight ?? "?") was refused: \(error)")
            outcome.inFlight = nil
            return outcome
        } catch {
            return outcome
        }
    }
}

// MARK: - Plugin changes racing other calls

extension DaemonDurabilityTests {
    /// How a call ended: answered as done, refused with the error named, or cut off without an answer.
    enum Answer: Equatable, CustomStringConvertible {
        case done
        case refused(String)
        case unanswered

        init(_ call: () async throws -> Void) async {
            do {
                try await call()
                self = .done
            } catch let error as VarlinkError {
                self = .refused(error.name)
            } catch {
                self = .unanswered
            }
        }

        var description: String {
            switch self {
            case .done: "done"
            case .refused(let name): "refused \(name)"
            case .unanswered: "unanswered"
            }
        }
    }

    @Test(
        "An Unload racing an OpenSession at the plugin's route: the one answered as done survives kill -9 right after its reply"
    )
    func unloadRacingOpenSession() async throws {
        // Slowed writes widen the stretch in which the two calls overlap.
        let plugins = try await TestPlugins.directory()
        let daemon = try await DaemonProcess.start(plugins: plugins, extraArguments: Self.slowStateWrites)
        var lost: [String] = []
        var answered: [String] = []
        let rounds = 8
        for round in 0..<rounds {
            let name = "race\(round)"
            let nav = try await NavigationClient.connect(to: daemon)
            let opening = Task {
                await Answer { try await nav.call("OpenSession", ["name": .string(name), "root": "settings.main"]) }
            }
            // The Unload comes 0 to 35 ms after, while the OpenSession's list or first record is being written.
            try await Task.sleep(for: .milliseconds(5 * round))
            let unloading = Task {
                await Answer { try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"]) }
            }
            let opened = await opening.value
            // Killed at once after the first answer as done, before the other call has ended.
            let unloaded = opened == .done ? Answer.unanswered : await unloading.value
            try await daemon.crash()
            _ = await unloading.value
            answered.append("\(round): OpenSession \(opened), Unload \(unloaded)")
            try await daemon.restart()
            let states = try await Self.pluginStates(daemon)
            let after = try await NavigationClient.connect(to: daemon)
            let sessionBack = (try? await after.routes(session: name)) == ["settings.main"]
            if opened == .done, !sessionBack {
                lost.append("round \(round): the session OpenSession opened is gone; plugins \(states)")
            }
            if unloaded == .done, states["Settings"] != "removed" {
                lost.append("round \(round): the unloaded Settings is back: \(states["Settings"] ?? "unlisted")")
            }
            // The next round starts as this one did.
            if sessionBack { try await after.call("CloseSession", ["name": .string(name)]) }
            if states["Settings"] != "loaded" {
                _ = try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(plugins)/Settings")])
            }
            try await after.close()
        }
        print("Unload racing OpenSession: \(answered.joined(separator: "; "))")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }
}

extension DaemonDurabilityTests {
    @Test(
        "A Load refused for another plugin of its name loaded by hand writes nothing: kill -9 while it is answered keeps the acknowledged one"
    )
    func refusedLoadWritesNothing() async throws {
        let plugins = try await TestPlugins.directory()
        let elsewhere = (plugins as NSString).deletingLastPathComponent + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(plugins)/Settings", toPath: "\(elsewhere)/Settings")
        let daemon = try await DaemonProcess.start(plugins: plugins, extraArguments: Self.slowStateWrites)
        try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(elsewhere)/Settings")])
        var lost: [String] = []
        for delay in [0, 20, 40, 60, 80] {
            // The plugins folder's Settings, while the one from elsewhere serves the name: refused (duplicateName).
            let loading = Task {
                await Answer {
                    try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(plugins)/Settings")])
                }
            }
            try await Task.sleep(for: .milliseconds(delay))
            try await daemon.crash()
            let answer = await loading.value
            #expect(answer != .done, "\(delay) ms: \(answer)")
            try await daemon.restart()
            let rows = try await DaemonPluginReloadTests.plugins(daemon, "List")["plugins"]?.arrayValue ?? []
            let settings = rows.filter { $0["name"] == "Settings" }.map {
                "\($0["folder"]?.stringValue ?? "?"): \($0["state"]?.stringValue ?? "?")"
            }
            if settings.sorted() != ["\(elsewhere)/Settings: loaded", "\(plugins)/Settings: removed"] {
                lost.append("\(delay) ms: the acknowledged Load from elsewhere is undone: \(settings)")
            }
        }
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test(
        "A Load refused because the folder's manifest does not read writes nothing: an Unload acknowledged before stays, and a refused folder from elsewhere is not loaded at start"
    )
    func refusedManifestLoadWritesNothing() async throws {
        let plugins = try await TestPlugins.directory()
        let elsewhere = (plugins as NSString).deletingLastPathComponent + "/empty-plugin"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        // A folder of its own in place of the link to the build's: its manifest is moved away below.
        try TestPlugins.copyExample("Settings", in: plugins)
        let daemon = try await DaemonProcess.start(plugins: plugins)
        try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        let overrides = "\(daemon.stateDirectory)/plugin-overrides.json"
        // Written and written back, the file would hold the same text, but be another file, written later (each
        // write replaces it; the file system may give the new one the old one's inode): compare when it was written.
        func written() throws -> String {
            var status = stat()
            try #require(stat(overrides, &status) == 0)
            let time = "\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
            return "inode \(status.st_ino), written \(time): \(try String(contentsOfFile: overrides, encoding: .utf8))"
        }
        let before = try written()
        let manifest = "\(plugins)/Settings/manifest.json"
        try FileManager.default.moveItem(atPath: manifest, toPath: "\(plugins)/Settings.manifest.json")
        for folder in ["\(plugins)/Settings", elsewhere] {
            let answer = await Answer {
                try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string(folder)])
            }
            #expect(answer == .refused("io.navhost.Plugins.PluginRefused"), "\(folder): \(answer)")
            #expect(try written() == before, "\(folder): the refused Load wrote the overrides")
        }
        try FileManager.default.moveItem(atPath: "\(plugins)/Settings.manifest.json", toPath: manifest)
        try await daemon.crash()
        try await daemon.restart()
        let rows = try await DaemonPluginReloadTests.plugins(daemon, "List")["plugins"]?.arrayValue ?? []
        let states = rows.filter { $0["name"] == "Settings" || $0["folder"]?.stringValue == elsewhere }.map {
            "\($0["folder"]?.stringValue ?? "?"): \($0["state"]?.stringValue ?? "?")"
        }
        #expect(states == ["\(plugins)/Settings: removed"], "the acknowledged Unload holds; nothing from elsewhere")
        try await daemon.terminate()
    }
}
