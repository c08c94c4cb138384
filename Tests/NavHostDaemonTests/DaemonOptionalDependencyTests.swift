import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// Features that degrade instead of refusing: with the real daemon and the four example plugins, removing a feature
/// that others depend on optionally takes its screens away and drops Home's tile for it, live, and putting it back
/// brings the tile back; removing one that another plugin needs is refused, visibly, until that changes.
@Suite("The running daemon removes optional features live and says why it keeps a needed one")
struct DaemonOptionalDependencyTests {
    /// The feature removed, a screen of it to show before the removal, and Home's tile for it.
    private struct Removal {
        var feature: String
        var route: String
        var parameters: JSONObject = [:]
        var tile: String
    }

    @Test("Settings, UserProfile, Products removed one by one and put back: screens popped, tiles follow, no restart")
    func removeAndRestoreOneByOne() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let nav = try await NavigationClient.connect(to: daemon)
        let watcher = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(watcher.watch())
        let first = try await updates.next { $0["snapshot"] != nil }
        let home = first["snapshot"]?["stack"]?.arrayValue?.first
        #expect(home?["route"] == "home.main")
        #expect(home?["state"]?["tiles"] == ["products", "profile", "settings"])
        let homeID = try #require(home?["id"]?.stringValue)

        let removals = [
            Removal(feature: "Settings", route: "settings.main", tile: "settings"),
            Removal(feature: "UserProfile", route: "profile.user", parameters: ["userID": "u1"], tile: "profile"),
            Removal(feature: "Products", route: "products.list", tile: "products"),
        ]
        var tiles: [String] = ["products", "profile", "settings"]
        for removal in removals {
            let pushed = try await nav.call(
                "Navigate",
                ["route": .string(removal.route), "parameters": .object(removal.parameters)]
            )
            let shown = try #require(pushed["screen"]?["id"]?.stringValue, "\(pushed)")
            let before = try #require(try await nav.snapshot()["revision"]?.intValue)

            try FileManager.default.removeItem(atPath: "\(directory)/\(removal.feature)")

            let popped = try await updates.next { reply in
                reply["event"]?["kind"] == "popped"
                    && reply["event"]?["removed"]?.arrayValue?.contains(.string(shown)) == true
            }
            tiles.removeAll { $0 == removal.tile }
            let dropped = try await updates.next { reply in
                reply["event"]?["kind"] == "stateChanged" && reply["event"]?["screenID"] == .string(homeID)
            }
            #expect(
                dropped["event"]?["state"]?["tiles"] == JSONValue.array(tiles.map(JSONValue.string)),
                "\(removal.feature)"
            )
            let poppedRevision = try #require(popped["event"]?["revision"]?.intValue)
            let droppedRevision = try #require(dropped["event"]?["revision"]?.intValue)
            #expect(poppedRevision > before && droppedRevision > before && poppedRevision != droppedRevision)
            #expect(try await nav.routes() == ["home.main"])
            let listed = try #require(try await PluginsWatch.listed(removal.feature, in: daemon))
            #expect(listed["state"] == "removed", "\(listed)")
            await #expect(throws: VarlinkError.self, "\(removal.route) left with \(removal.feature)") {
                try await nav.call(
                    "Navigate",
                    ["route": .string(removal.route), "parameters": .object(removal.parameters)]
                )
            }
            #expect(
                daemon.log.contains(
                    #"Unloaded a plugin navhost.plugin=\#(removal.feature) navhost.plugin.reason="its folder was removed""#
                ),
                "\(daemon.log)"
            )
        }
        #expect(try await nav.topState()["tiles"] == [])
        let refused = await #expect(throws: VarlinkError.self, "a tap on a tile that is not shown fails") {
            try await nav.call("Send", ["intent": "onTappedSettings"])
        }
        #expect(refused?.name == "io.navhost.Navigation.IntentFailed")
        // What the ViewModel threw reaches the operator: the reply names only the screen and the intent.
        #expect(
            daemon.log.contains("onTappedSettings failed: Settings is not loaded, so its tile is not shown")
                && daemon.log.contains("navhost.intent=onTappedSettings"),
            "\(daemon.log.suffix(3_000))"
        )

        for removal in removals.reversed() {
            try PluginFolder.deploy(removal.feature, into: directory)
            tiles = ["products", "profile", "settings"].filter { tile in
                tiles.contains(tile) || tile == removal.tile
            }
            let restored = try await updates.next { reply in
                reply["event"]?["kind"] == "stateChanged" && reply["event"]?["screenID"] == .string(homeID)
            }
            #expect(
                restored["event"]?["state"]?["tiles"] == JSONValue.array(tiles.map(JSONValue.string)),
                "\(removal.feature)"
            )
            #expect(try await PluginsWatch.listed(removal.feature, in: daemon)?["state"] == "loaded")
        }
        try await nav.call("Send", ["intent": "onTappedSettings"])
        #expect(try await nav.routes() == ["home.main", "settings.main"])
        #expect(daemon.log.components(separatedBy: "Ready").count == 2, "one daemon served it all")
        try await daemon.terminate()
    }

    @Test(
        "A removal a hard dependant blocks: the log line, the listed state and the Watch event say why, until it goes"
    )
    func hardDependantBlocksTheRemoval() async throws {
        let directory = try TestPlugins.copies()
        try TestPlugins.makeHardDependency(of: "Home", on: "Settings", in: directory)
        // Home is not a session's root here, so that it can go itself at the end.
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=products.list"])
        let nav = try await NavigationClient.connect(to: daemon)
        let plugins = try await PluginsWatch.start(on: daemon)

        try FileManager.default.removeItem(atPath: "\(directory)/Settings")

        let refused = try await plugins.event { $0["name"] == "Settings" }
        #expect(refused["kind"] == "failed")
        #expect(refused["reason"]?["code"] == "inUse")
        #expect(refused["reason"]?["message"]?.stringValue?.contains("needed by Home") == true, "\(refused)")
        let listed = try #require(try await PluginsWatch.listed("Settings", in: daemon))
        #expect(listed["state"] == "loaded")
        #expect(listed["removalRefused"]?["neededBy"] == ["Home"])
        #expect(listed["removalRefused"]?["message"] == "needed by Home")
        #expect(try await PluginsWatch.eventually { daemon.log.contains("navhost.plugin.needed-by=Home") })
        let warning = daemon.log.split(separator: "\n").first { $0.contains("navhost.plugin.needed-by=Home") }
        #expect(warning?.hasPrefix("<4>Refused to remove a plugin whose folder is gone") == true, "\(warning ?? "")")
        try await nav.call("Navigate", ["route": "settings.main"])
        #expect(try await nav.routes() == ["products.list", "settings.main"], "Settings keeps serving")

        // Its folder comes back: the refusal is cleared.
        try PluginFolder.deploy("Settings", into: directory)
        #expect(
            try await PluginsWatch.eventually {
                try await PluginsWatch.listed("Settings", in: daemon)?["removalRefused"] == nil
            }
        )
        #expect(try await PluginsWatch.listed("Settings", in: daemon)?["state"] == "loaded")

        // Removed again, then what needed it goes: both are removed, and Settings' screen is popped.
        try FileManager.default.removeItem(atPath: "\(directory)/Settings")
        _ = try await plugins.event { $0["name"] == "Settings" && $0["kind"] == "failed" }
        try FileManager.default.removeItem(atPath: "\(directory)/Home")
        let home = try await plugins.event { $0["name"] == "Home" }
        let settings = try await plugins.event { $0["name"] == "Settings" }
        #expect(home["kind"] == "removed")
        #expect(settings["kind"] == "removed")
        #expect(try await PluginsWatch.listed("Settings", in: daemon)?["state"] == "removed")
        #expect(try await nav.routes() == ["products.list"])
        try await daemon.terminate()
    }
}
