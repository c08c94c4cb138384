import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// The plugins folder and the control calls (`Load`, `Reload`) acting on the same plugins: a plugin is known by one
/// folder path whoever names it, a refused call leaves nothing behind, and a new build's changed needs are acted on.
@Suite("The plugins folder and the control calls together")
struct DaemonPluginFolderControlTests {
    @Test("A daemon given a relative plugins folder takes a plugin loaded by hand from it for the folder's own")
    func relativePluginsFolder() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: Self.relative(directory))
        let plugins = try await PluginsWatch.start(on: daemon)
        _ = try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        _ = try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(directory)/Settings")])

        // The folder changes (same content): the watcher must see the loaded plugin there, not a second Settings.
        try FileManager.default.setAttributes(
            [.modificationDate: Date()],
            ofItemAtPath: "\(directory)/Settings/manifest.json"
        )
        // A change after it that the watcher reports, so that the first one has been acted on when it arrives.
        try PluginFolder.deploy("Products", into: directory, version: "1.1.0")
        let reloaded = try await plugins.event { $0["name"] == "Products" && $0["kind"] != "failed" }

        #expect(reloaded["kind"] == "reloaded", "\(reloaded)")
        #expect(!plugins.events.contains { $0["name"] == "Settings" && $0["kind"] == "failed" }, "\(plugins.events)")
        let settings = try await Self.rows(named: "Settings", in: daemon)
        #expect(settings.map { $0["state"] } == ["loaded"], "\(settings)")
        try await daemon.terminate()
    }

    @Test(
        "A refused Load leaves no row in the plugin list and writes nothing; a second copy of a loaded plugin is refused and not listed; a Load of the folder that serves is done"
    )
    func refusedLoadLeavesNothing() async throws {
        let directory = try TestPlugins.copies()
        let copy = "\(directory).copy"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let daemon = try await DaemonProcess.start(plugins: directory)
        let before = try await DaemonPluginReloadTests.plugins(daemon, "List")

        let refusals = [("\(directory)/Missing", "fileMissing"), ("\(directory).elsewhere/Orders", "fileMissing")]
        for (path, code) in refusals {
            let refusal = await #expect(throws: VarlinkError.self) {
                try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string(path)])
            }
            #expect(refusal?.name == "io.navhost.Plugins.PluginRefused")
            #expect(refusal?.parameters["code"] == .string(code))
        }

        #expect(try await DaemonPluginReloadTests.plugins(daemon, "List") == before)
        #expect(try await Self.rows(named: "Home", in: daemon).count == 1)
        // A folder that is not there is refused before the plugins loaded by hand are written.
        #expect(!FileManager.default.fileExists(atPath: "\(daemon.stateDirectory)/plugin-overrides.json"))

        // The folder that serves, loaded again: done, the plugin as it serves (it was refused as duplicateName).
        let served = try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(directory)/Home")])
        #expect(served["plugin"]?["state"] == "loaded")
        #expect(try await DaemonPluginReloadTests.plugins(daemon, "List") == before)
        // A second copy of it, elsewhere: refused, and not listed.
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(directory)/Home", toPath: "\(copy)/Home")
        let duplicate = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string("\(copy)/Home")])
        }
        #expect(duplicate?.parameters["code"] == .string("duplicateName"))
        #expect(try await Self.rows(named: "Home", in: daemon).count == 1)
        try await daemon.terminate()
    }

    @Test("A removal refused because a plugin needed it goes ahead once that plugin's new build no longer does")
    func reloadFreesARefusedRemoval() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let plugins = try await PluginsWatch.start(on: daemon)
        try PluginFolder.deploy("Home", into: directory, version: "1.1.1") { folder in
            try Self.setSettingsDependency(in: folder, optional: false)
        }
        _ = try await plugins.event { $0["name"] == "Home" && $0["kind"] == "reloaded" }
        try FileManager.default.removeItem(atPath: "\(directory)/Settings")
        let refused = try await plugins.event { $0["name"] == "Settings" }
        #expect(refused["kind"] == "failed")
        #expect(refused["reason"]?["code"] == "inUse")

        try PluginFolder.deploy("Home", into: directory, version: "1.1.2") { folder in
            try Self.setSettingsDependency(in: folder, optional: true)
        }
        let removed = try await plugins.event { $0["name"] == "Settings" && $0["kind"] == "removed" }

        #expect(removed["version"] == "1.0.0")
        #expect(try await PluginsWatch.listed("Settings", in: daemon)?["state"] == "removed")
        try await daemon.terminate()
    }
}

extension DaemonPluginFolderControlTests {
    @Test("A refused build stops being reported once the folder holds the serving build again")
    func refusedBuildForgottenWhenFolderIsRestored() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let plugins = try await PluginsWatch.start(on: daemon)
        try PluginFolder.deploy("Products", into: directory, version: "1.1.0") { folder in
            try PluginFolder.setManifest(in: folder, sha256: String(repeating: "0", count: 64))
        }
        let failed = try await plugins.event(within: .seconds(20)) { $0["name"] == "Products" }
        #expect(failed["reason"]?["code"] == "checksumMismatch")
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["lastReloadFailure"] != nil)

        try PluginFolder.deploy("Products", into: directory)

        #expect(
            try await PluginsWatch.eventually {
                try await PluginsWatch.listed("Products", in: daemon)?["lastReloadFailure"] == nil
            },
            "the refusal of a build no longer in the folder is still listed"
        )
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["version"] == "1.0.0")
        try await daemon.terminate()
    }
}

// MARK: - Support

extension DaemonPluginFolderControlTests {
    /// `path` relative to the current directory (the daemon's, which it inherits from the test).
    static func relative(_ path: String) -> String {
        let here = FileManager.default.currentDirectoryPath.split(separator: "/")
        return Array(repeating: "..", count: here.count).joined(separator: "/") + path
    }

    /// Every row of `io.navhost.Plugins.List` for `name`.
    static func rows(named name: String, in daemon: DaemonProcess) async throws -> [JSONValue] {
        let list = try await DaemonPluginReloadTests.plugins(daemon, "List")["plugins"]?.arrayValue ?? []
        return list.filter { $0["name"]?.stringValue == name }
    }

    /// Makes the manifest in `folder` list Settings as a dependency, optional or not.
    static func setSettingsDependency(in folder: String, optional: Bool) throws {
        let path = "\(folder)/manifest.json"
        guard case .object(var manifest) = try JSONParser().parse(try Data(contentsOf: URL(fileURLWithPath: path)))
        else { throw TimedOut(what: "a manifest object in \(path)") }
        var dependencies = (manifest["dependencies"]?.arrayValue ?? []).filter { $0["name"] != "Settings" }
        var settings: JSONObject = ["name": "Settings", "versions": ">=1.0.0 <2.0.0"]
        if optional { settings["optional"] = true }
        dependencies.append(.object(settings))
        manifest["dependencies"] = .array(dependencies)
        try Data(JSONValue.object(manifest).serializedBytes()).write(to: URL(fileURLWithPath: path))
    }
}
