import Foundation
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost
@testable import NavHostStorage

/// `PluginControl`'s `Load` and `Unload` with the file of overrides: what one call was answered is what the next
/// start loads, whatever runs beside it while the file is written.
@Suite("Loading and unloading by hand, kept for the next start")
@MainActor
struct PluginControlOverridesTests {
    /// A plugins folder with Home, Products and Settings, and UserProfile in a folder of its own.
    let workspace: PluginWorkspace
    let elsewhere: TemporaryDirectory

    init() throws {
        workspace = try PluginWorkspace(linking: ["Home", "Products", "Settings"])
        elsewhere = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(
            atPath: "\(elsewhere.path)/UserProfile",
            withDestinationPath: try PluginWorkspace.stagedDirectory("UserProfile")
        )
    }

    /// A control as a daemon starting on the workspace makes it, writing its overrides through `writes`: a second one
    /// is the daemon after a restart.
    func start(writes: any SessionFileWrites = DiskWrites()) -> PluginControl {
        let registry = workspace.makeRegistry()
        let control = PluginControl(
            registry: registry,
            sessions: SessionRegistry(catalog: registry.catalog, logger: .init(label: "test")),
            overrides: PluginOverridesFile(directory: workspace.state, writes: writes)
        )
        control.loadAtStart(from: workspace.plugins)
        return control
    }

    func state(of name: String, in control: PluginControl) -> String {
        let rows = control.registry.statuses.filter { $0.name == name }
        return rows.map { "\($0.state)" }.joined(separator: ", ")
    }

    func cleanUp() {
        workspace.remove()
        elsewhere.remove()
    }

    @Test("Two Unloads of one plugin at once: one is answered, the other finds it gone, and a restart agrees")
    func concurrentUnloads() async throws {
        defer { cleanUp() }
        let control = start()
        let first = Task { try await control.unload("Settings") }
        let second = Task { try await control.unload("Settings") }
        let outcomes = [await first.result, await second.result]

        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        #expect(
            try PluginOverridesFile(directory: workspace.state).load().get().unloaded == [
                "\(workspace.plugins)/Settings"
            ]
        )
        #expect(state(of: "Settings", in: start()) == "removed")
    }

    @Test("Two Loads of one folder at once: one loads it, the other finds it serving, and a restart loads it")
    func concurrentLoads() async throws {
        defer { cleanUp() }
        let control = start()
        let path = "\(elsewhere.path)/UserProfile"
        let first = Task { try await control.load(pluginAt: path) }
        let second = Task { try await control.load(pluginAt: path) }
        let outcomes = [await first.result, await second.result]

        // One image: the second Load loaded nothing again (it was refused as duplicateName before).
        let images = outcomes.compactMap { try? $0.get().libraryPath }
        #expect(images.count == 2 && images[0] == images[1], "\(outcomes)")
        #expect(try PluginOverridesFile(directory: workspace.state).load().get().loaded == [path])
        #expect(state(of: "UserProfile", in: start()) == "loaded")
    }

    @Test("A rescan while a Load of a folder unloaded by hand is written leaves the folder to the Load")
    func loadRacingRescan() async throws {
        defer { cleanUp() }
        let control = start()
        try await control.unload("Settings")
        let loading = Task { try await control.load(pluginAt: "\(workspace.plugins)/Settings") }
        await Task.yield()
        control.rescan(workspace.plugins)  // while the file is written, if the Load has begun

        let status = try await loading.value
        #expect(status.isLoaded)
        #expect(state(of: "Settings", in: control) == "loaded")
        #expect(try PluginOverridesFile(directory: workspace.state).load().get() == PluginOverrides())
        #expect(state(of: "Settings", in: start()) == "loaded")
    }

    @Test("A refused Load of a folder unloaded by hand leaves it removed, on disk and for a rescan")
    func refusedLoadOfUnloadedFolder() async throws {
        defer { cleanUp() }
        let control = start()
        try await control.unload("Settings")
        try FileManager.default.removeItem(atPath: "\(workspace.plugins)/Settings")
        try workspace.addStaged("Settings") { $0.sha256 = String(repeating: "0", count: 64) }

        await #expect(throws: PluginRegistry.ChangeError.self) {
            try await control.load(pluginAt: "\(workspace.plugins)/Settings")
        }

        #expect(state(of: "Settings", in: control) == "removed")
        try FileManager.default.removeItem(atPath: "\(workspace.plugins)/Settings")
        try workspace.link(staged: "Settings")
        control.rescan(workspace.plugins)
        #expect(state(of: "Settings", in: control) == "removed", "a rescan leaves a folder unloaded by hand alone")
        #expect(state(of: "Settings", in: start()) == "removed")
    }

    @Test("A Load's path is absolute, normalized, and a plugins folder reached through a link is the plugins folder")
    func loadPathsAreNormalized() async throws {
        defer { cleanUp() }
        let control = start()
        await #expect(throws: PluginRegistry.ChangeError.self) { try await control.load(pluginAt: "Settings") }
        try await control.unload("Settings")
        let loaded = try await control.load(pluginAt: "\(workspace.plugins)/./Settings/")
        #expect(loaded.directory == "\(workspace.plugins)/Settings")
        #expect(try PluginOverridesFile(directory: workspace.state).load().get() == PluginOverrides())

        let alias = "\(elsewhere.path)/plugins-link"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: workspace.plugins)
        try await control.unload("Settings")
        let throughLink = try await control.load(pluginAt: "\(alias)/Settings")
        #expect(throughLink.directory == "\(workspace.plugins)/Settings")
        #expect(try PluginOverridesFile(directory: workspace.state).load().get() == PluginOverrides())
    }

    @Test(
        "Plugins loaded by hand and plugins of the folder that need each other load in any depth, at once and at start"
    )
    func dependencyChainAcrossFolders() async throws {
        defer { cleanUp() }
        let hard = try #require(VersionRange(">=1.0.0 <2.0.0"))
        // Home (plugins folder) needs UserProfile (elsewhere); Orders, a Settings elsewhere, needs Home.
        try FileManager.default.removeItem(atPath: "\(workspace.plugins)/Home")
        try workspace.addStaged("Home") { manifest in
            manifest.dependencies.removeAll { $0.name == "UserProfile" }
            manifest.dependencies.append(.init(name: "UserProfile", versions: hard))
        }
        let moved = try workspace.addStaged("Settings", as: "Orders") { manifest in
            manifest.dependencies.append(.init(name: "Home", versions: hard))
        }
        try FileManager.default.removeItem(atPath: "\(workspace.plugins)/Settings")
        try FileManager.default.moveItem(atPath: moved, toPath: "\(elsewhere.path)/Settings")
        let control = start()
        try await control.load(pluginAt: "\(elsewhere.path)/UserProfile")
        #expect(state(of: "Home", in: control) == "loaded", "a Load retries what waited for it, as a restart would")
        try await control.load(pluginAt: "\(elsewhere.path)/Settings")

        let restarted = start()
        for name in ["UserProfile", "Home", "Settings"] {
            #expect(state(of: name, in: restarted) == "loaded", "\(name)")
        }
    }

    @Test("An Unload whose plugin moves to another folder while it is written unloads it there, and a restart agrees")
    func unloadOfAMovingPlugin() async throws {
        defer { cleanUp() }
        let control = start()
        // While the file is written, the folder is renamed and a rescan follows it. (The test renamed after one
        // `Task.yield`, which under the load of a parallel run with no width limit came after the Unload had ended.)
        let plugins = workspace.plugins
        control.whileWriting = {
            control.whileWriting = nil
            try? FileManager.default.moveItem(atPath: "\(plugins)/Settings", toPath: "\(plugins)/Prefs")
            control.rescan(plugins)
        }

        try await control.unload("Settings")
        #expect(FileManager.default.fileExists(atPath: "\(plugins)/Prefs"), "renamed while written")
        #expect(state(of: "Settings", in: control).hasSuffix("removed"), "\(state(of: "Settings", in: control))")
        #expect(state(of: "Settings", in: start()) == "removed")
    }

    @Test("An Unload whose plugin's folder was renamed, the watcher not there yet, leaves no copy loaded")
    func unloadOfAMovingPluginWatched() async throws {
        defer { cleanUp() }
        let control = start()
        // Before the Unload, as while it is written (it reads the folder again before it answers): the folder watcher
        // has not taken the rename yet (it waits for the folder to settle before unloading the gone folder's plugin).
        // Before, the Unload went by the registry alone, and the watcher loaded the renamed copy after its answer.
        try FileManager.default.moveItem(atPath: "\(workspace.plugins)/Settings", toPath: "\(workspace.plugins)/Prefs")

        try await control.unload("Settings")
        var incomplete: Set<String> = []
        control.take(.changed(["Settings", "Prefs"]), of: workspace.plugins, incomplete: &incomplete)
        control.take(.settled, of: workspace.plugins, incomplete: &incomplete)
        #expect(control.registry.status(named: "Settings")?.isLoaded != true, "\(state(of: "Settings", in: control))")
        let overrides = try PluginOverridesFile(directory: workspace.state).load().get()
        #expect(!state(of: "Settings", in: start()).contains("loaded"), "a restart agrees: \(overrides)")
    }

    @Test("An Unload whose plugin's folder is renamed while it is written, the watcher taking it then, leaves no copy")
    func unloadOfAMovingPluginWatchedWhileWritten() async throws {
        defer { cleanUp() }
        let control = start()
        let plugins = workspace.plugins
        var incomplete: Set<String> = []
        // The watcher takes the rename while the file is written: it waits for the folder to settle before unloading
        // the gone folder's plugin, and meanwhile refuses the renamed copy as duplicateName; the Unload then tries
        // again with the copy written down too.
        control.whileWriting = {
            control.whileWriting = nil
            try? FileManager.default.moveItem(atPath: "\(plugins)/Settings", toPath: "\(plugins)/Prefs")
            control.take(.changed(["Settings", "Prefs"]), of: plugins, incomplete: &incomplete)
        }

        try await control.unload("Settings")
        control.take(.settled, of: plugins, incomplete: &incomplete)
        #expect(FileManager.default.fileExists(atPath: "\(plugins)/Prefs"), "renamed while written")
        #expect(control.registry.status(named: "Settings")?.isLoaded != true, "\(state(of: "Settings", in: control))")
        #expect(!state(of: "Settings", in: start()).contains("loaded"), "a restart agrees")
    }

    @Test(
        "An Unload whose plugin's folder is renamed while the sessions are written, the watcher loading it, answers none loaded"
    )
    func unloadOfAPluginMovedWhileTheSessionsAreWritten() async throws {
        defer { cleanUp() }
        let control = start()
        let plugins = workspace.plugins
        var incomplete: Set<String> = []
        // Once the Unload is written and made, while the sessions it changed are written: the watcher finds a folder
        // holding a plugin whose name is loaded no more, and loads it. Before session 62 the Unload answered then, the
        // copy loaded, and a restart loaded it too (a review: 8 of 10 renames during an Unload of 30 sessions).
        control.whileCommitting = {
            control.whileCommitting = nil
            try? FileManager.default.moveItem(atPath: "\(plugins)/Settings", toPath: "\(plugins)/Prefs")
            control.take(.changed(["Settings", "Prefs"]), of: plugins, incomplete: &incomplete)
            control.take(.settled, of: plugins, incomplete: &incomplete)
        }

        try await control.unloadCommittingSessions("Settings")
        #expect(FileManager.default.fileExists(atPath: "\(plugins)/Prefs"), "renamed while the sessions were written")
        #expect(control.registry.status(named: "Settings")?.isLoaded != true, "\(state(of: "Settings", in: control))")
        #expect(!state(of: "Settings", in: start()).contains("loaded"), "a restart agrees")
    }

    @Test(
        "An Unload whose plugin's folder is renamed while the sessions are written, the watcher not there yet, leaves no copy"
    )
    func unloadOfAPluginMovedWhileTheSessionsAreWrittenUnwatched() async throws {
        defer { cleanUp() }
        let control = start()
        let plugins = workspace.plugins
        control.whileCommitting = {
            control.whileCommitting = nil
            try? FileManager.default.moveItem(atPath: "\(plugins)/Settings", toPath: "\(plugins)/Prefs")
        }

        try await control.unloadCommittingSessions("Settings")
        // The watcher takes the rename after the answer: the copy was written down as unloaded before it.
        var incomplete: Set<String> = []
        control.take(.changed(["Settings", "Prefs"]), of: plugins, incomplete: &incomplete)
        control.take(.settled, of: plugins, incomplete: &incomplete)
        #expect(control.registry.status(named: "Settings")?.isLoaded != true, "\(state(of: "Settings", in: control))")
        #expect(!state(of: "Settings", in: start()).contains("loaded"), "a restart agrees")
    }

    @Test(
        "A hidden folder of the plugins folder, which the folder's own loading skips, is loaded by hand like any other"
    )
    func loadOfAHiddenFolder() async throws {
        defer { cleanUp() }
        let control = start()
        try await control.unload("Settings")
        try workspace.link(staged: "Settings", as: ".Settings")
        try await control.load(pluginAt: "\(workspace.plugins)/.Settings")

        let restarted = start()
        #expect(restarted.registry.status(named: "Settings")?.directory == "\(workspace.plugins)/.Settings")
        #expect(restarted.registry.status(named: "Settings")?.isLoaded == true)
    }

    @Test("A plugin loaded by hand whose folder is gone at start is forgotten by an Unload of its name")
    func unloadOfAStrandedPlugin() async throws {
        defer { cleanUp() }
        let path = "\(elsewhere.path)/UserProfile"
        try await start().load(pluginAt: path)
        try FileManager.default.removeItem(atPath: path)
        let restarted = start()
        #expect(state(of: "UserProfile", in: restarted).hasPrefix("quarantined"))

        try await restarted.unload("UserProfile")

        #expect(state(of: "UserProfile", in: restarted) == "")
        #expect(try PluginOverridesFile(directory: workspace.state).load().get() == PluginOverrides())
        #expect(state(of: "UserProfile", in: start()) == "")
    }

    @Test("An Unload of a name served from the plugins folder also forgets a folder loaded by hand that holds it")
    func unloadOfANameLoadedTwice() async throws {
        defer { cleanUp() }
        try await start().load(pluginAt: "\(elsewhere.path)/UserProfile")
        try workspace.link(staged: "UserProfile")
        let restarted = start()
        #expect(state(of: "UserProfile", in: restarted).contains("loaded"))

        try await restarted.unload("UserProfile")

        let overrides = try PluginOverridesFile(directory: workspace.state).load().get()
        #expect(overrides == PluginOverrides(unloaded: ["\(workspace.plugins)/UserProfile"]), "\(overrides)")
        #expect(state(of: "UserProfile", in: start()) == "removed", "no folder brings the name back")
    }

    @Test("A plugin loaded by hand from outside the plugins folder and unloaded says so, and its folder, until a Load")
    func unloadOfAPluginLoadedFromOutside() async throws {
        defer { cleanUp() }
        let path = "\(elsewhere.path)/UserProfile"
        let control = start()
        try await control.load(pluginAt: path)
        try await control.unload("UserProfile")

        // Before, the row said nothing, and a Reload of the name named no folder: the author had no way back shown.
        let row = try #require(control.reports.first { $0.name == "UserProfile" })
        #expect(row.state == .removed && row.unloadedByHand == true && row.folder == path, "\(row)")
        #expect(control.folderUnloadedByHand(named: "UserProfile") == path)
        #expect(state(of: "UserProfile", in: start()) == "", "a restart loads it no more, and lists it no more")

        // A refused Load of it (its folder emptied) leaves it unloaded by hand.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        await #expect(throws: PluginRegistry.ChangeError.self) { try await control.load(pluginAt: path) }
        #expect(control.folderUnloadedByHand(named: "UserProfile") == path)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(
            atPath: path,
            withDestinationPath: try PluginWorkspace.stagedDirectory("UserProfile")
        )

        try await control.load(pluginAt: path)
        #expect(control.reports.filter { $0.name == "UserProfile" }.map(\.unloadedByHand) == [nil])
        #expect(control.folderUnloadedByHand(named: "UserProfile") == nil)
    }

    @Test("Folders outside the plugins folder unloaded by hand are listed up to a limit, the oldest going first")
    func unloadsFromOutsideAreListedUpToALimit() async throws {
        defer { cleanUp() }
        let control = start()
        let limit = PluginControl.outsideUnloadsListed
        let folders = (0...limit).map { "\(elsewhere.path)/copy-\($0)" }
        for folder in folders {
            try FileManager.default.createSymbolicLink(
                atPath: folder,
                withDestinationPath: try PluginWorkspace.stagedDirectory("UserProfile")
            )
            try await control.load(pluginAt: folder)
            try await control.unload("UserProfile")
        }

        // Before, each folder loaded and unloaded left a row until the daemon stopped: a list without end.
        let listed = control.reports.filter { $0.name == "UserProfile" && $0.unloadedByHand == true }.map(\.folder)
        #expect(listed.count == limit)
        #expect(Set(listed) == Set(folders.dropFirst()), "the oldest folder's row went")
        #expect(control.folderUnloadedByHand(named: "UserProfile") == folders.last)
    }

    @Test("A folder unloaded by hand stays listed as such while a copy of its plugin loaded from elsewhere serves")
    func unloadedRowStaysBesideACopy() async throws {
        defer { cleanUp() }
        let control = start()
        try await control.unload("Settings")
        try FileManager.default.createSymbolicLink(
            atPath: "\(elsewhere.path)/Settings",
            withDestinationPath: try PluginWorkspace.stagedDirectory("Settings")
        )
        try await control.load(pluginAt: "\(elsewhere.path)/Settings")

        // Before, the row vanished: nothing listed the plugins folder's Settings, which stays out until a Load of it.
        let rows = control.reports.filter { $0.name == "Settings" }
        #expect(rows.map(\.state) == [.removed, .loaded], "\(rows)")
        #expect(rows.first?.unloadedByHand == true && rows.first?.folder == "\(workspace.plugins)/Settings")

        // The copy unloaded in turn: a Reload still names the plugins folder's, whose Load brings Settings back at
        // every start too; both rows say a Load of their folder brings it back.
        try await control.unload("Settings")
        #expect(control.folderUnloadedByHand(named: "Settings") == "\(workspace.plugins)/Settings")
        #expect(
            control.reports.filter { $0.name == "Settings" && $0.unloadedByHand == true }.map(\.folder) == [
                "\(workspace.plugins)/Settings", "\(elsewhere.path)/Settings",
            ]
        )
    }

    @Test("An Unload also unloads a copy of the plugin in the plugins folder under another folder name, for good")
    func unloadOfAPluginWithATwin() async throws {
        defer { cleanUp() }
        try workspace.link(staged: "Settings", as: "Settings2")
        let control = start()
        let before = state(of: "Settings", in: control)
        #expect(before.contains("loaded") && before.contains("duplicateName"), "the copy waits: \(before)")

        try await control.unload("Settings")

        // Before, the copy was loaded by the retry after the unload, and again at every start.
        #expect(state(of: "Settings", in: control) == "removed, removed")
        #expect(control.reports.filter { $0.name == "Settings" }.allSatisfy { $0.unloadedByHand == true })
        let overrides = try PluginOverridesFile(directory: workspace.state).load().get()
        #expect(Set(overrides.unloaded) == ["\(workspace.plugins)/Settings", "\(workspace.plugins)/Settings2"])
        #expect(state(of: "Settings", in: start()) == "removed, removed", "a restart loads neither")
    }

    @Test(
        "A plugin loaded by hand, refused at start beside the plugins folder's copy, serves once that copy is removed"
    )
    func handLoadedCopyTakesOver() async throws {
        defer { cleanUp() }
        try await start().load(pluginAt: "\(elsewhere.path)/UserProfile")
        try workspace.link(staged: "UserProfile")
        let restarted = start()
        #expect(restarted.registry.status(named: "UserProfile")?.directory == "\(workspace.plugins)/UserProfile")

        try FileManager.default.removeItem(atPath: "\(workspace.plugins)/UserProfile")
        restarted.rescan(workspace.plugins)

        // Before, it stayed refused until the next start, which loaded it.
        let serving = restarted.registry.status(named: "UserProfile")
        #expect(serving?.isLoaded == true && serving?.directory == "\(elsewhere.path)/UserProfile")
    }
}
