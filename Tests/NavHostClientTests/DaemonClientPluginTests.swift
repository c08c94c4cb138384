import Foundation
import IntegrationHarness
import NavHostClient
import Testing

/// Loading, reloading and unloading plugins through NavHostClient in the real `navhostd`, with a plugin directory of
/// the test's own.
@Suite(
    "NavHostClient plugins against navhostd",
    .enabled(if: DaemonProcess.examplePluginsAreStaged, "needs the example plugins staged by the build")
)
struct DaemonClientPluginTests {
    /// Runs `body` with a daemon loading a fresh copy of the example plugins (Products copied, so that it can be
    /// changed), and removes the copy afterwards. Its session `main` starts at `settings.main`, so that Home, which
    /// depends on every other example, may be unloaded.
    static func withPrivatePlugins(_ body: (String, DaemonProcess, NavHostClient) async throws -> Void) async throws {
        let directory = try await TestPlugins.directory()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        try TestPlugins.copyExample("Products", in: directory)
        try await DaemonClientTests.withDaemon(
            plugins: directory,
            arguments: ["--session", "main=settings.main", "--no-watch-plugins"]
        ) {
            daemon,
            client in
            try await body(directory, daemon, client)
        }
    }

    @Test("Reload swaps in a fresh image, Unload takes a plugin out, Load brings it back")
    func reloadUnloadLoad() async throws {
        try await Self.withPrivatePlugins { directory, daemon, client in
            let reloaded = try await client.reloadPlugin(named: "Products")
            #expect(reloaded.state == .loaded)
            #expect(reloaded.version == "1.0.0")
            #expect(reloaded.path == "\(daemon.stateDirectory)/plugin-images/Products-2.so")

            try await client.unloadPlugin(named: "Home")
            #expect(try await client.plugins().first { $0.name == "Home" }?.state == .removed)
            #expect(try await client.routes().contains { $0.feature == "Home" } == false)

            let loaded = try await client.loadPlugin(at: "\(directory)/Home")
            #expect(loaded.name == "Home")
            #expect(loaded.routes == ["home.main"])
            #expect(try await client.navigate(to: "home.main").screen.route.id == "home.main")
        }
    }

    @Test("watchPlugins lists the plugins, then reports a reload, an unload and a refused build as they happen")
    func watchPlugins() async throws {
        try await Self.withPrivatePlugins { directory, daemon, client in
            let watch = try await client.watchPlugins()
            var updates = watch.makeAsyncIterator()
            guard case .plugins(let all, coalesced: false)? = try await updates.next() else {
                Issue.record("the first update is not the list of plugins")
                return
            }
            #expect(Set(all.map(\.name)) == ["Home", "Products", "Settings", "UserProfile"])

            try await client.reloadPlugin(named: "Products")
            try await client.unloadPlugin(named: "Home")
            try TestPlugins.breakChecksum(of: "Products", in: directory)
            _ = try? await client.reloadPlugin(named: "Products")

            let reloaded = PluginEvent(
                kind: .reloaded,
                name: "Products",
                version: "1.0.0",
                previousVersion: "1.0.0",
                path: "\(daemon.stateDirectory)/plugin-images/Products-2.so",
                folder: "\(directory)/Products"
            )
            #expect(try await updates.next() == .event(reloaded))
            let removed = PluginEvent(kind: .removed, name: "Home", version: "1.1.0", folder: "\(directory)/Home")
            #expect(try await updates.next() == .event(removed))
            guard case .event(let failed)? = try await updates.next() else {
                Issue.record("no event for the refused build")
                return
            }
            #expect(failed.kind == .failed)
            #expect(failed.name == "Products")
            #expect(failed.reason?.code == "checksumMismatch")
            #expect(failed.folder == "\(directory)/Products", "which folder's build was refused")
            #expect(failed.version == "1.0.0", "the refused build's version")
            await watch.close()
        }
    }

    @Test("A name nothing loaded has is PluginNotFound; a broken build and a needed plugin are PluginRefused")
    func refusals() async throws {
        try await Self.withPrivatePlugins { directory, _, client in
            let missing = try await #require(throws: NavHostClientError.self) {
                try await client.reloadPlugin(named: "Nope")
            }
            #expect(missing.code == .pluginNotFound)
            #expect(missing.parameters == ["name": "Nope"])

            try TestPlugins.breakChecksum(of: "Products", in: directory)
            let broken = try await #require(throws: NavHostClientError.self) {
                try await client.reloadPlugin(named: "Products")
            }
            #expect(broken.code == .pluginRefused)
            #expect(broken.parameters["code"] == "checksumMismatch")
            let products = try #require(try await client.plugins().first { $0.name == "Products" })
            #expect(products.state == .loaded, "the old build keeps serving")
            #expect(products.lastReloadFailure?.code == "checksumMismatch")

            try TestPlugins.makeHardDependency(of: "Home", on: "Products", in: directory)
            try await client.reloadPlugin(named: "Home")
            let needed = try await #require(throws: NavHostClientError.self) {
                try await client.unloadPlugin(named: "Products")
            }
            #expect(needed.code == .pluginRefused)
            #expect(needed.parameters["code"] == "inUse", "Home's new build cannot work without Products")
        }
    }

    @Test("A Load of a package, a folder of plugins, no folder, a link loop or a huge manifest says what is wrong")
    func loadOfAPackage() async throws {
        try await Self.withPrivatePlugins { directory, _, client in
            let package = "\((directory as NSString).deletingLastPathComponent)/Favorites"
            let staged = "\(package)/.build/debug/plugins/Favorites"
            try FileManager.default.createDirectory(atPath: staged, withIntermediateDirectories: true)
            for file in ["plugin.json", "Package.swift"] {
                FileManager.default.createFile(atPath: "\(package)/\(file)", contents: Data("{}".utf8))
            }
            let refused = try await #require(throws: NavHostClientError.self) {
                try await client.loadPlugin(at: package)
            }
            #expect(refused.parameters["code"] == "fileMissing")
            let message = refused.parameters["message"]?.stringValue ?? ""
            #expect(message.hasSuffix("it is a plugin's package: load its staged folder, \(staged)"), "\(message)")

            // Staged by `make CONFIG=release` too: both are named.
            let stagedForRelease = "\(package)/.build/release/plugins/Favorites"
            try FileManager.default.createDirectory(atPath: stagedForRelease, withIntermediateDirectories: true)
            let twice = try await #require(throws: NavHostClientError.self) {
                try await client.loadPlugin(at: package)
            }
            let both = twice.parameters["message"]?.stringValue ?? ""
            #expect(both.hasSuffix("load one of its staged folders, \(staged) or \(stagedForRelease)"), "\(both)")

            // A folder of plugins, and a folder that is not there, say so too.
            let folderOfPlugins = try await #require(throws: NavHostClientError.self) {
                try await client.loadPlugin(at: directory)
            }
            let listed = folderOfPlugins.parameters["message"]?.stringValue ?? ""
            #expect(listed.hasSuffix("load one of them (Home, Products, Settings, UserProfile)"), "\(listed)")
            let nowhere = try await #require(throws: NavHostClientError.self) {
                try await client.loadPlugin(at: "\(package)/Nowhere")
            }
            #expect(nowhere.parameters["message"] == .string("there is no folder \(package)/Nowhere"))

            // Symbolic links that loop lead to no folder, and say so (they were "no folder" at all).
            try FileManager.default.createSymbolicLink(atPath: "\(package)/LoopA", withDestinationPath: "LoopB")
            try FileManager.default.createSymbolicLink(atPath: "\(package)/LoopB", withDestinationPath: "LoopA")
            let loop = try await #require(throws: NavHostClientError.self) {
                try await client.loadPlugin(at: "\(package)/LoopA")
            }
            #expect(loop.parameters["code"] == "fileMissing")
            #expect(
                loop.parameters["message"]
                    == .string(
                        "\(package)/LoopA is a symbolic link that leads to no folder (its target is gone, or the links loop)"
                    )
            )

            // A manifest past the 1 MiB the daemon reads is a bad manifest, not a missing one.
            let large = "\(package)/Large"
            try FileManager.default.createDirectory(atPath: large, withIntermediateDirectories: true)
            FileManager.default.createFile(
                atPath: "\(large)/manifest.json",
                contents: Data(#"{"name": "Large", "summary": ""#.utf8) + Data(repeating: 0x61, count: 2 << 20)
                    + Data(#""}"#.utf8)
            )
            let tooLarge = try await #require(throws: NavHostClientError.self) {
                try await client.loadPlugin(at: large)
            }
            #expect(tooLarge.parameters["code"] == "badManifest")
            #expect(
                tooLarge.parameters["message"]
                    == .string("\(large)/manifest.json is larger than 1048576 bytes, as no manifest is")
            )
        }
    }

    @Test("An Unload refused because a session starts at the plugin's route says how to free it")
    func unloadOfASessionsRoot() async throws {
        try await Self.withPrivatePlugins { _, _, client in
            let configured = try await #require(throws: NavHostClientError.self) {
                try await client.unloadPlugin(named: "Settings")
            }
            #expect(configured.parameters["code"] == "inUse")
            #expect(
                configured.message.contains(
                    "session main starts at settings.main, which Settings serves; change its root"
                ),
                "\(configured.message)"
            )

            try await client.openSession(named: "kiosk", root: "products.list")
            let opened = try await #require(throws: NavHostClientError.self) {
                try await client.unloadPlugin(named: "Products")
            }
            #expect(opened.message.contains("close it first (navctl session close kiosk)"), "\(opened.message)")
        }
    }
}
