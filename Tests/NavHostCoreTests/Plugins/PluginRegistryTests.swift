import Foundation
import InMemoryLogging
import NavHostKit
import Testing

@testable import NavHostCore

/// The registry's own behaviour over the staged example plugins: logging, reloading from a path the caller
/// chooses, loading a folder twice, the SDK gate in both directions.
@MainActor
@Suite("The plugin registry")
struct PluginRegistryTests {
    @Test("Each outcome is logged with the plugin's name as navhost.plugin, and its load time is kept")
    func outcomesAreLogged() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let logs = InMemoryLogHandler()
        let registry = workspace.makeRegistry(logs: logs)

        registry.loadAll(from: workspace.plugins)

        let loaded = logs.entries.filter { $0.message == "Loaded a plugin" }
        #expect(loaded.map(\.level) == [.info, .info, .info, .info])
        #expect(
            loaded.compactMap { $0.metadata["navhost.plugin"]?.description } == [
                "Settings", "UserProfile", "Products", "Home",
            ]
        )
        #expect(loaded.first?.metadata["navhost.plugin.version"] == "1.0.0")
        #expect(
            loaded.first { $0.metadata["navhost.plugin"] == "Products" }?.metadata["navhost.plugin.routes"]
                == "products.list products.detail"
        )
        #expect(registry.statuses.allSatisfy { ($0.loadDuration ?? .zero) > .zero })
    }

    @Test("A plugin loads from a library path the caller gives, as a reload from a fresh copy will")
    func loadsFromAGivenLibraryPath() throws {
        let workspace = try PluginWorkspace(linking: [])
        defer { workspace.remove() }
        let settings = try PluginWorkspace.stagedDirectory("Settings")
        let copy = "\(workspace.state)/private/libSettingsFeature.so"
        try FileManager.default.createDirectory(atPath: "\(workspace.state)/private", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(settings)/libSettingsFeature.so", toPath: copy)
        let registry = workspace.makeRegistry()

        let status = registry.load(pluginAt: settings, libraryPath: copy)

        #expect(status.isLoaded, "\(status)")
        #expect(status.libraryPath == copy)
        #expect(status.directory == settings, "resources still come from the plugin's folder")
        #expect(registry.catalog.owner(ofRoute: "settings.main") == "Settings")
    }

    @Test("Loading the same folder again leaves the loaded plugins as they are")
    func loadingTwice() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let registry = workspace.makeRegistry()
        let first = registry.loadAll(from: workspace.plugins)

        let second = registry.loadAll(from: workspace.plugins)

        #expect(Set(second) == Set(first))
        #expect(registry.statuses.count == 4)
        #expect(registry.catalog.featureNames == ["Home", "Products", "Settings", "UserProfile"])
    }

    @Test("Loading a plugin that is already loaded is refused as duplicateName, and it stays loaded")
    func loadingALoadedPluginAgain() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)

        let again = registry.load(pluginAt: "\(workspace.plugins)/Settings")

        #expect(again.quarantineReason?.code == .duplicateName)
        #expect(
            again.quarantineReason?.message
                == "the plugin Settings is already loaded from \(workspace.plugins)/Settings: a new build of that "
                + "folder loads with navctl plugins reload Settings; another folder's once that one's folder is "
                + "removed, or by hand: navctl plugins unload Settings (which keeps every folder of the name out), "
                + "then navctl plugins load <its folder>",
            "names the folder serving it, and what to do"
        )
        #expect(registry.status(named: "Settings")?.isLoaded == true)
        #expect(registry.statuses.filter { $0.name == "Settings" }.map(\.isLoaded) == [true, false])
        #expect(registry.catalog.owner(ofRoute: "settings.main") == "Settings")
    }

    @Test("A plugin built against an older minor SDK loads on a newer daemon")
    func olderMinorLoads() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let registry = workspace.makeRegistry(sdkVersion: NavHostKitVersion(major: 2, minor: 3, patch: 0))
        #expect(registry.loadAll(from: workspace.plugins).allSatisfy { $0.isLoaded })
    }

    @Test("A daemon of the next major SDK refuses every plugin, and says which SDK it serves")
    func nextMajorRefusesAll() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let registry = workspace.makeRegistry(sdkVersion: NavHostKitVersion(major: 3, minor: 0, patch: 0))

        let statuses = registry.loadAll(from: workspace.plugins)

        #expect(statuses.count == 4)
        #expect(statuses.allSatisfy { $0.quarantineReason?.code == .abiMismatch })
        #expect(
            statuses.first?.quarantineReason?.message.hasSuffix(
                "serves plugins built against 3.0.0 to 3.0.x: build the plugin against a NavHostKit 3.x SDK"
            ) == true
        )
        #expect(registry.catalog.featureNames.isEmpty)
    }

    @Test("A manifest that names an older SDK than the library was built against is caught by the library's own word")
    func libraryReportsItsSDK() throws {
        let workspace = try PluginWorkspace(linking: [])
        defer { workspace.remove() }
        let built = NavHostKitVersion.current
        // A daemon one minor version older than the SDK the examples were compiled against; the manifest claims that
        // older version, so the manifest-only gate lets it through.
        let host = NavHostKitVersion(major: built.major, minor: built.minor - 1, patch: 0)
        try workspace.addStaged("Settings") { $0.sdkVersion = host }
        let registry = workspace.makeRegistry(sdkVersion: host)

        let status = registry.load(pluginAt: "\(workspace.plugins)/Settings")

        #expect(status.quarantineReason?.code == .abiMismatch)
        #expect(status.quarantineReason?.message.contains("reports it was built against NavHostKit \(built)") == true)
        #expect(registry.catalog.featureNames.isEmpty)
    }

    @Test("A manifest whose SDK differs from the library's, both served by the daemon, is refused as a mismatch")
    func manifestSDKMustMatchTheLibrary() throws {
        let workspace = try PluginWorkspace(linking: [])
        defer { workspace.remove() }
        let built = NavHostKitVersion.current
        // Another patch of the same minor: served by the daemon either way, so only the mismatch refuses it.
        let claimed = NavHostKitVersion(major: built.major, minor: built.minor, patch: built.patch + 1)
        try workspace.addStaged("Settings") { $0.sdkVersion = claimed }
        let registry = workspace.makeRegistry()

        let status = registry.load(pluginAt: "\(workspace.plugins)/Settings")

        #expect(status.quarantineReason?.code == .manifestMismatch)
        #expect(status.quarantineReason?.message.contains("the manifest says \(claimed)") == true)
    }

    @Test("Each loaded plugin keeps its data in its own file under <state>/store")
    func storesPerPlugin() async throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)

        let driver = try SessionDriver(catalog: registry.catalog, root: "profile.user", ["userID": "u3"])
        defer { driver.close() }
        try await driver.settle()
        #expect(driver.state["value"]?["name"] == "Alan Turing", "\(driver.state)")

        let files = try FileManager.default.contentsOfDirectory(atPath: "\(workspace.state)/store")
        #expect(
            files.filter { !$0.hasPrefix(".") } == ["UserProfile.json"],
            "only the feature that stored something has a file: \(files)"
        )
    }
}
