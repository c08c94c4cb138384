import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// The plugins folder itself changing under the running daemon: created after the start, replaced by a new release
/// moved into place, or a symbolic link to it pointed at another release. The daemon follows what the path names now.
@Suite("The running daemon follows its plugins folder when the folder itself is created or replaced")
struct DaemonPluginFolderReplacementTests {
    @Test("A plugins folder created after the start is followed: its plugins load, and so do those deployed later")
    func folderCreatedAfterTheStart() async throws {
        let directory = try TestPaths.temporaryDirectory() + "/plugins"
        let daemon = try await DaemonProcess.start(plugins: directory)
        let plugins = try await PluginsWatch.start(on: daemon)
        let list = try await DaemonPluginReloadTests.plugins(daemon, "List")
        #expect(list["watchesPluginsFolder"] == true, "\(list)")

        // A first install: the folder filled under another name, then moved into place.
        try FileManager.default.createDirectory(atPath: "\(directory).incoming", withIntermediateDirectories: false)
        try FileManager.default.copyItem(
            atPath: "\(DaemonProcess.examplePlugins)/Settings",
            toPath: "\(directory).incoming/Settings"
        )
        try FileManager.default.moveItem(atPath: "\(directory).incoming", toPath: directory)
        let settings = try await plugins.event { $0["name"] == "Settings" }
        try PluginFolder.deploy("UserProfile", into: directory)
        let userProfile = try await plugins.event { $0["name"] == "UserProfile" }

        #expect(settings["kind"] == "loaded", "\(settings)")
        #expect(userProfile["kind"] == "loaded", "\(userProfile)")
        try await daemon.terminate()
    }

    @Test(
        "A plugins folder moved aside and a new release moved in: changed plugins reload in place, new ones load, and the new folder is followed"
    )
    func folderReplacedByANewRelease() async throws {
        let directory = try TestPlugins.copies(of: ["Home", "Settings"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=home.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)
        let release = "\(directory).next"
        try FileManager.default.createDirectory(atPath: release, withIntermediateDirectories: false)
        for name in ["Home", "Settings", "Products"] {
            try FileManager.default.copyItem(
                atPath: "\(DaemonProcess.examplePlugins)/\(name)",
                toPath: "\(release)/\(name)"
            )
        }
        try PluginFolder.setManifest(in: "\(release)/Settings", version: "1.0.1")

        // The folder is gone for a moment longer than a batch of the watcher: its plugins wait, as a plugin folder
        // being replaced does, for the folder to settle.
        try FileManager.default.moveItem(atPath: directory, toPath: "\(directory).previous")
        try await Task.sleep(for: .milliseconds(300))
        try FileManager.default.moveItem(atPath: release, toPath: directory)
        let (products, settings) = try await Self.firstEvents(of: ("Products", "Settings"), in: plugins)
        try PluginFolder.deploy("UserProfile", into: directory)
        let userProfile = try await plugins.event { $0["name"] == "UserProfile" }

        #expect(products?["kind"] == "loaded", "\(products ?? .null)")
        #expect(settings?["kind"] == "reloaded" && settings?["version"] == "1.0.1", "\(settings ?? .null)")
        #expect(userProfile["kind"] == "loaded", "\(userProfile)")
        #expect(try await nav.routes() == ["home.main", "settings.main"])
        // Once the folder has settled (2 s), when a plugin still missing would go.
        try await Task.sleep(for: .seconds(2.5))
        #expect(!plugins.events.contains { $0["kind"] == "removed" }, "\(plugins.events)")
        try await daemon.terminate()
    }

    @Test("A plugins folder reached through a symbolic link follows the link when it is pointed at another release")
    func linkPointedAtAnotherRelease() async throws {
        let first = try TestPlugins.copies(of: ["Home", "Settings"])
        let second = try TestPlugins.copies(of: ["Home", "Settings", "Products"])
        try PluginFolder.setManifest(in: "\(second)/Settings", version: "1.0.1")
        let link = try TestPaths.temporaryDirectory() + "/current"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first)
        let daemon = try await DaemonProcess.start(plugins: link, sessions: ["main=home.main"])
        let plugins = try await PluginsWatch.start(on: daemon)

        // As deploy tools switch releases: a new link renamed over the old one.
        try FileManager.default.createSymbolicLink(atPath: "\(link).new", withDestinationPath: second)
        #expect(rename("\(link).new", link) == 0)
        let (products, settings) = try await Self.firstEvents(of: ("Products", "Settings"), in: plugins)
        try PluginFolder.deploy("UserProfile", into: link)
        let userProfile = try await plugins.event { $0["name"] == "UserProfile" }

        #expect(products?["kind"] == "loaded", "\(products ?? .null)")
        #expect(settings?["kind"] == "reloaded" && settings?["version"] == "1.0.1", "\(settings ?? .null)")
        #expect(userProfile["kind"] == "loaded", "\(userProfile)")
        try await daemon.terminate()
    }

    /// The first events of the two plugins `names`, in whichever order they come.
    private static func firstEvents(
        of names: (String, String),
        in plugins: PluginsWatch
    ) async throws -> (JSONValue?, JSONValue?) {
        func first(_ name: String) -> JSONValue? { plugins.events.first { $0["name"]?.stringValue == name } }
        _ = try await PluginsWatch.eventually { first(names.0) != nil && first(names.1) != nil }
        return (first(names.0), first(names.1))
    }
}
