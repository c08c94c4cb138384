import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// The daemon follows its plugins folder (inotify): plugins dropped in load, changed builds reload, removed folders
/// unload, and `io.navhost.Plugins.Watch` reports each outcome.
@Suite("The running daemon follows its plugins folder")
struct DaemonPluginFolderTests {
    // MARK: Dropping in

    @Test("Plugins copied in and renamed into place load, after their dependencies, and their routes appear")
    func droppedPluginsLoad() async throws {
        let directory = try TestPlugins.copies(of: ["Settings"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)
        #expect(plugins.first.names == ["Settings"])

        try PluginFolder.deploy("UserProfile", into: directory)
        let userProfile = try await plugins.event { $0["name"] == "UserProfile" }
        try PluginFolder.deploy("Products", into: directory)
        let products = try await plugins.event { $0["name"] == "Products" }

        #expect(userProfile["kind"] == "loaded")
        #expect(userProfile["version"] == "1.0.0")
        #expect(userProfile["path"]?.stringValue?.hasSuffix("/plugin-images/UserProfile-1.so") == true)
        #expect(products["kind"] == "loaded")
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "products.list"])
        #expect(try await nav.routes() == ["settings.main", "products.list"])
        try await daemon.terminate()
    }

    @Test("A plugin written slowly, manifest first, loads once its library is whole, and is never refused")
    func slowWriteLoadsOnceComplete() async throws {
        let directory = try TestPlugins.copies(of: ["Settings"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)
        try await TestPlugins.writeInPlace(
            folder: "\(DaemonProcess.examplePlugins)/UserProfile",
            as: "UserProfile",
            into: directory,
            manifestFirst: true,
            chunks: 8,
            pause: .milliseconds(150)
        )
        let loaded = try await plugins.event { $0["name"] == "UserProfile" }

        #expect(loaded["kind"] == "loaded", "\(loaded)")
        #expect(plugins.events.filter { $0["kind"] == "failed" }.isEmpty, "\(plugins.events)")
        #expect(try await PluginsWatch.listed("UserProfile", in: daemon)?["state"] == "loaded")
        try await daemon.terminate()
    }

    @Test("A plugin whose listed resource comes after its library waits for it, and is never refused")
    func resourceArrivingLastWaits() async throws {
        let directory = try TestPlugins.copies(of: ["Settings"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)
        let source = "\(DaemonProcess.examplePlugins)/Products"
        let target = "\(directory)/Products"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        for file in ["manifest.json", "libProductsFeature.so"] {
            try FileManager.default.copyItem(atPath: "\(source)/\(file)", toPath: "\(target)/\(file)")
        }
        // Well past the folder's settling time: without its catalog, Products is neither loaded nor refused.
        try await Task.sleep(for: .milliseconds(500))
        #expect(plugins.events.isEmpty, "\(plugins.events)")
        try FileManager.default.copyItem(atPath: "\(source)/products.json", toPath: "\(target)/products.json")
        let loaded = try await plugins.event { $0["name"] == "Products" }

        #expect(loaded["kind"] == "loaded", "\(loaded)")
        #expect(plugins.events.filter { $0["kind"] == "failed" }.isEmpty, "\(plugins.events)")
        try await daemon.terminate()
    }

    // MARK: Replacing

    @Test(
        "A new build with changed code dropped over a loaded plugin: reloaded, stack and state kept, new code answers"
    )
    func newBuildReplacesTheLoadedOne() async throws {
        // Products 1.1.0 keeps its filter in capitals: a real build of different code, compiled now.
        let rebuilt = try await PluginRebuilder.rebuild(
            plugin: "Products",
            editing: [
                (
                    file: "Sources/Presentation/Features/Products/ViewModel/ProductsViewModel.swift",
                    replace: "        filter = text\n",
                    with: "        filter = text.uppercased()\n"
                )
            ],
            version: "1.1.0"
        )
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "products.list"])
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "card"]])
        let before = try await nav.snapshot()
        let revision = try #require(before["revision"]?.intValue)
        let session = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(session.watch(resumeFrom: revision))
        let plugins = try await PluginsWatch.start(on: daemon)

        try PluginRebuilder.deploy(rebuilt, into: directory)
        let reloaded = try await plugins.event { $0["name"] == "Products" }

        #expect(reloaded["kind"] == "reloaded")
        #expect(reloaded["previousVersion"] == "1.0.0")
        #expect(reloaded["version"] == "1.1.0")
        #expect(reloaded["path"]?.stringValue?.hasSuffix("/plugin-images/Products-2.so") == true)
        let swap = try await updates.next { $0["event"] != nil }
        #expect(swap["event"]?["kind"] == "replaced")
        #expect(swap["event"]?["revision"]?.intValue == revision + 1)
        #expect(
            swap["event"]?["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
                == before["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        )
        let loaded = try await PluginsWatch.eventually { try await nav.topState()["value"]?["totalCount"] != nil }
        #expect(loaded)
        #expect(try await nav.topState()["value"]?["filter"] == "card", "the restorable state crossed builds")
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        #expect(try await nav.topState()["value"]?["filter"] == "ENGINE", "the new code answers the next intent")
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["version"] == "1.1.0")
        try await daemon.terminate()
    }

    @Test("A plugin folder put in place right after READY loads: the folder is watched before the daemon is ready")
    func pluginDroppedRightAfterReady() async throws {
        let directory = try TestPlugins.copies(of: ["Settings"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        // No watch or call first: the daemon said READY, and that is all a deployment script waits for.
        try PluginFolder.deploy("UserProfile", into: directory)
        #expect(
            try await PluginsWatch.eventually {
                try await PluginsWatch.listed("UserProfile", in: daemon)?["state"] == "loaded"
            },
            "a folder put in place once the daemon was ready was never loaded"
        )
        try await daemon.terminate()
    }

    @Test("A plugin refused at start is tried, and logged, once: the folder is watched before the plugins load")
    func refusedAtStartLoggedOnce() async throws {
        let directory = try TestPlugins.copies(of: ["Settings", "UserProfile"])
        try TestPlugins.breakChecksum(of: "UserProfile", in: directory)
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        // "Ready" is logged after every line of the start: once it is in, they all are.
        #expect(
            try await PluginsWatch.eventually { daemon.log.contains("Ready") },
            "the daemon never logged Ready: \(daemon.log)"
        )
        let refusals = daemon.log.split(separator: "\n").filter { $0.contains("Quarantined a plugin") }
        #expect(refusals.count == 1, "\(refusals)")
        #expect(refusals.first?.contains("navhost.plugin.reason=checksumMismatch") == true, "\(refusals)")
        try await daemon.terminate()
    }

    @Test("The serving build put in place again is checked: checked when whole, failed when a resource is missing")
    func servingBuildPutInPlaceAgainIsChecked() async throws {
        let directory = try TestPlugins.copies(of: ["Settings", "Products"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)

        try PluginFolder.deploy("Products", into: directory)
        let checked = try await plugins.event { $0["name"] == "Products" }
        #expect(checked["kind"] == "checked", "\(plugins.events)")
        #expect(checked["folder"]?.stringValue == "\(directory)/Products")
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["lastReloadFailure"] == nil)

        try PluginFolder.deploy("Products", into: directory) { copy in
            try FileManager.default.removeItem(atPath: "\(copy)/products.json")
        }
        let failed = try await plugins.event { $0["name"] == "Products" && $0["kind"] != "checked" }
        #expect(failed["kind"] == "failed")
        #expect(failed["reason"]?["code"] == "fileMissing")
        let listed = try await PluginsWatch.listed("Products", in: daemon)
        #expect(listed?["state"] == "loaded", "the loaded version serves on")
        #expect(listed?["lastReloadFailure"]?["code"] == "fileMissing")
        #expect(listed?["lastRefusedBuild"] == listed?["sha256"], "the build refused is the one serving")
        let events = plugins.events.filter { $0["name"] == "Products" }
        #expect(events.count == 2, "one event per change: \(plugins.events)")
        try await daemon.terminate()
    }

    @Test("Events of a copy the daemon has reloaded already, arriving after the reload, check nothing and say nothing")
    func lateEventsOfAReloadedCopyCheckNothing() async throws {
        let directory = try TestPlugins.copies(of: ["Settings", "Products"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)
        // The writer keeps a file of the new build open past the daemon's reload of it, as a copy that closes its
        // files late does: the close comes as a change of the folder after the batch the daemon reloaded on.
        var held: Int32 = -1
        try PluginFolder.deploy("Products", into: directory, version: "1.0.1") { copy in
            held = open("\(copy)/NOTES", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        }
        #expect(held >= 0)
        let reloaded = try await plugins.event { $0["name"] == "Products" }
        #expect(reloaded["kind"] == "reloaded", "\(plugins.events)")
        close(held)

        // A change the daemon answers after it: what the close made it do, if anything, came before (UserProfile's
        // folder sorts after Products', should both come in one batch).
        try PluginFolder.deploy("UserProfile", into: directory)
        let loaded = try await plugins.event { $0["name"] == "UserProfile" }
        #expect(loaded["kind"] == "loaded")
        // Before: a `checked` event for Products too, though nothing in its folder had changed since the reload.
        #expect(plugins.events.filter { $0["name"] == "Products" }.count == 1, "\(plugins.events)")
        try await daemon.terminate()
    }

    @Test("Unwatched, a SIGHUP checks the loaded plugins' folders changed since they were tried, and no others")
    func rescanChecksChangedServingFolders() async throws {
        let directory = try TestPlugins.copies(of: ["Settings", "Products"])
        let daemon = try await DaemonProcess.start(
            plugins: directory,
            sessions: ["main=settings.main"],
            extraArguments: ["--no-watch-plugins"]
        )
        let plugins = try await PluginsWatch.start(on: daemon)
        try PluginFolder.deploy("Products", into: directory) { copy in
            try FileManager.default.removeItem(atPath: "\(copy)/products.json")
        }
        let beforeTheFirst = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        let failed = try await plugins.event { $0["name"] == "Products" }
        #expect(failed["kind"] == "failed")
        #expect(failed["reason"]?["code"] == "fileMissing")
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["lastReloadFailure"]?["code"] == "fileMissing")
        // The first reload's READY=1 read now: unread, it was what the wait below found (the notifications are read
        // as they are waited for), and the deploy raced the second rescan, which said `removed` (seen once in CI).
        _ = try await daemon.waitFor("READY=1", after: beforeTheFirst)

        // Nothing changed since: the next SIGHUP checks nothing, and says nothing. It ends (READY=1) before the
        // deploy: a rescan between the deploy's two renames found the folder gone, and said `removed`.
        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        try PluginFolder.deploy("Products", into: directory)
        daemon.send(signal: SIGHUP)
        let checked = try await plugins.event { $0["name"] == "Products" && $0["kind"] != "failed" }
        #expect(checked["kind"] == "checked")
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["lastReloadFailure"] == nil)
        #expect(plugins.events.filter { $0["name"] == "Settings" }.isEmpty, "\(plugins.events)")
        #expect(plugins.events.count == 2, "\(plugins.events)")
        try await daemon.terminate()
    }

    @Test("A resource removed while the daemon loads its plugin is seen by the next look: failed, fileMissing, once")
    func resourceRemovedDuringTheLoadIsSeen() async throws {
        let directory = try TestPlugins.copies(of: ["Settings"])
        try await TestPlugins.stageFixture("FaultPlugin", into: directory)
        // Faulty's composition root deletes its resource after the daemon found it there and before the load ends:
        // the removal is stamped no later than the end of the load, as close to the try as a change can come.
        let daemon = try await DaemonProcess.start(
            plugins: directory,
            sessions: ["main=settings.main"],
            extraArguments: ["--no-watch-plugins"],
            environment: ["NAVHOST_FAULTY_INIT": "removeResource"]
        )
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/Faulty/faulty.txt"))
        #expect(try await PluginsWatch.listed("Faulty", in: daemon)?["state"] == "loaded", "it was whole at its load")
        let plugins = try await PluginsWatch.start(on: daemon)

        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        // Before: nothing; the folder's change time was not after the triedAt the end of the load stamped.
        let listed = try await PluginsWatch.listed("Faulty", in: daemon)
        #expect(listed?["state"] == "loaded", "the loaded version serves on")
        try #require(listed?["lastReloadFailure"]?["code"] == "fileMissing", "\(plugins.events)")
        let failed = try await plugins.event { $0["name"] == "Faulty" }
        #expect(failed["kind"] == "failed")
        #expect(failed["reason"]?["code"] == "fileMissing")

        // Nothing changed since that check: the next SIGHUP says nothing of Faulty. UserProfile, put in place
        // before it, loads in it, and its event comes after any of Faulty's.
        try PluginFolder.deploy("UserProfile", into: directory)
        daemon.send(signal: SIGHUP)
        let loaded = try await plugins.event { $0["name"] == "UserProfile" }
        #expect(loaded["kind"] == "loaded")
        #expect(plugins.events.filter { $0["name"] == "Faulty" }.count == 1, "\(plugins.events)")
        try await daemon.terminate()
    }

    @Test("A listed resource in a subfolder, removed after the load, is seen by the next look: failed, fileMissing")
    func resourceInASubfolderRemovedIsSeen() async throws {
        let directory = try TestPlugins.copies(of: ["Settings", "Products"])
        // Products lists one more resource, in a subfolder: its removal changes that subfolder, not the plugin's
        // folder or its library.
        let folder = "\(directory)/Products"
        try FileManager.default.createDirectory(atPath: "\(folder)/data", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(folder)/data/extra.json"))
        let url = URL(fileURLWithPath: "\(folder)/manifest.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        manifest["resources"] = (manifest["resources"] as? [String] ?? []) + ["data/extra.json"]
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys, .withoutEscapingSlashes])
            .write(to: url)
        let daemon = try await DaemonProcess.start(
            plugins: directory,
            sessions: ["main=settings.main"],
            extraArguments: ["--no-watch-plugins"]
        )
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["state"] == "loaded", "it was whole at its load")
        let plugins = try await PluginsWatch.start(on: daemon)

        try FileManager.default.removeItem(atPath: "\(folder)/data/extra.json")
        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        // Before: nothing; only the folder and the library were stamped, and neither had changed.
        let listed = try await PluginsWatch.listed("Products", in: daemon)
        #expect(listed?["state"] == "loaded", "the loaded version serves on")
        try #require(listed?["lastReloadFailure"]?["code"] == "fileMissing", "\(plugins.events)")
        let failed = try await plugins.event { $0["name"] == "Products" }
        #expect(failed["kind"] == "failed")
        #expect(failed["reason"]?["code"] == "fileMissing")
        try await daemon.terminate()
    }

    @Test("A broken build dropped over a loaded plugin is refused: failed with the reason, the old one serves")
    func brokenBuildIsRefused() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "products.list"])
        let plugins = try await PluginsWatch.start(on: daemon)

        // A library that is not a shared object, with a manifest that describes it exactly.
        let junk = Data("not an ELF file".utf8)
        let junkFile = try TestPaths.temporaryDirectory() + "/junk.so"
        try junk.write(to: URL(fileURLWithPath: junkFile))
        let junkDigest = String(try await ChildProcess.run("/usr/bin/sha256sum", [junkFile]).output.prefix(64))
        try PluginFolder.deploy("Products", into: directory, version: "1.1.0") { folder in
            try junk.write(to: URL(fileURLWithPath: "\(folder)/libProductsFeature.so"))
            try PluginFolder.setManifest(in: folder, sha256: junkDigest)
        }
        let failed = try await plugins.event { $0["name"] == "Products" }

        #expect(failed["kind"] == "failed")
        #expect(failed["reason"]?["code"] == "notASharedObject")
        let listed = try #require(try await PluginsWatch.listed("Products", in: daemon))
        #expect(listed["version"] == "1.0.0")
        #expect(listed["lastReloadFailure"]?["code"] == "notASharedObject")
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        #expect(try await nav.topState()["value"]?["filter"] == "engine", "the old build still answers")
        try await daemon.terminate()
    }

    @Test("A library that never matches its manifest is tried once the folder settles, and reported once")
    func incompleteBuildIsReportedWhenSettled() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let plugins = try await PluginsWatch.start(on: daemon)

        try PluginFolder.deploy("Products", into: directory, version: "1.1.0") { folder in
            try PluginFolder.setManifest(in: folder, sha256: String(repeating: "0", count: 64))
        }
        let failed = try await plugins.event(within: .seconds(20)) { $0["name"] == "Products" }

        #expect(failed["kind"] == "failed")
        #expect(failed["reason"]?["code"] == "checksumMismatch")
        try FileManager.default.setAttributes(
            [.modificationDate: Date()],
            ofItemAtPath: "\(directory)/Products/manifest.json"
        )
        try await Task.sleep(for: .seconds(3))
        #expect(plugins.events.filter { $0["name"] == "Products" }.count == 1, "the same build is not retried")
        #expect(try await PluginsWatch.listed("Products", in: daemon)?["state"] == "loaded")
        try await daemon.terminate()
    }

    @Test("A library refused while half written is taken once it is whole, under the same manifest")
    func halfWrittenBuildIsTakenOnceWhole() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let plugins = try await PluginsWatch.start(on: daemon)
        let whole = try Data(
            contentsOf: URL(fileURLWithPath: "\(DaemonProcess.examplePlugins)/Products/libProductsFeature.so")
        )
        let half = whole.count / 2

        // A slow copy: the new manifest and half the library, then a pause past the folder's settling.
        try PluginFolder.deploy("Products", into: directory, version: "1.1.0") { folder in
            try whole.prefix(half).write(to: URL(fileURLWithPath: "\(folder)/libProductsFeature.so"))
        }
        let failed = try await plugins.event(within: .seconds(20)) { $0["name"] == "Products" }
        #expect(failed["kind"] == "failed")
        #expect(failed["reason"]?["code"] == "checksumMismatch")

        // The rest of the library, in place. Before, the build under the same manifest was taken for the refused one
        // and left alone: only a Reload by hand or a restart took it.
        let library = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(directory)/Products/libProductsFeature.so"))
        try library.seekToEnd()
        try library.write(contentsOf: whole.suffix(from: half))
        try library.close()
        let taken = try await plugins.event(within: .seconds(20)) { $0["name"] == "Products" }
        #expect(taken["kind"] == "reloaded", "\(taken)")
        let listed = try await PluginsWatch.listed("Products", in: daemon)
        #expect(listed?["version"] == "1.1.0" && listed?["lastReloadFailure"] == nil, "\(listed ?? nil)")
        try await daemon.terminate()
    }

    @Test("A folder removed and its new build moved in at once reloads in place: the screens and their state stay")
    func removedThenMovedInReloads() async throws {
        let directory = try TestPlugins.copies(of: ["Home", "Products"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=home.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "products.list"])
        try await DaemonPluginReloadTests.waitForProducts(nav)
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        let plugins = try await PluginsWatch.start(on: daemon)

        // An install that deletes the old folder, then renames the new one into place (the scaffold's `make install`
        // before session 24): the gap between the two is well inside the folder's batching.
        try FileManager.default.removeItem(atPath: "\(directory)/Products")
        try await Task.sleep(for: .milliseconds(100))
        try PluginFolder.deploy("Products", into: directory, version: "1.0.1")
        let event = try await plugins.event { $0["name"] == "Products" }

        #expect(event["kind"] == "reloaded", "\(event)")
        #expect(try await nav.routes() == ["home.main", "products.list"])
        #expect(try await nav.topState()["value"]?["filter"] == "engine")
        #expect(plugins.events.filter { $0["kind"] == "removed" }.isEmpty, "\(plugins.events)")
        try await daemon.terminate()
    }

    // MARK: Removing

    @Test(
        "A copy of a plugin under another folder name, refused while the plugin served, loads once its folder is gone"
    )
    func copyTakesOverFromARemovedPlugin() async throws {
        let directory = try TestPlugins.copies(of: ["Home", "Settings"])
        try FileManager.default.copyItem(atPath: "\(directory)/Settings", toPath: "\(directory)/SettingsB")
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=home.main"])
        let plugins = try await PluginsWatch.start(on: daemon)

        try FileManager.default.removeItem(atPath: "\(directory)/Settings")
        // Before, it stayed refused as duplicateName until a SIGHUP or a restart.
        let loaded = try await plugins.event { $0["name"] == "Settings" && $0["kind"] == "loaded" }

        #expect(loaded["path"]?.stringValue?.contains("/plugin-images/Settings-") == true)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])
        #expect(try await nav.routes() == ["home.main", "settings.main"])
        try await daemon.terminate()
    }

    @Test("Removing a plugin's folder unloads it: removed, and its screens and those above them popped")
    func removedFolderUnloads() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=settings.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "home.main"])
        try await nav.call("Navigate", ["route": "settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)

        try FileManager.default.removeItem(atPath: "\(directory)/Home")
        let removed = try await plugins.event { $0["name"] == "Home" }

        #expect(removed["kind"] == "removed")
        #expect(removed["version"] == "1.1.0")
        #expect(try await nav.routes() == ["settings.main"])
        #expect(try await PluginsWatch.listed("Home", in: daemon)?["state"] == "removed")
        try FileManager.default.removeItem(atPath: "\(directory)/Settings")
        let refused = try await plugins.event { $0["name"] == "Settings" }
        #expect(refused["kind"] == "failed", "a plugin serving a session's root stays")
        #expect(refused["reason"]?["code"] == "inUse")
        #expect(try await nav.routes() == ["settings.main"])
        let settings = try await PluginsWatch.listed("Settings", in: daemon)
        #expect(settings?["removalRefused"]?["rootOf"] == ["main"], "\(settings ?? .null)")
        #expect(settings?["removalRefused"]?["message"] == "the root of session main")
        try await daemon.terminate()
    }

    @Test("A plugin kept as the root of a session opened over the wire goes once that session is closed")
    func removalRefusedForASessionGoesWithIt() async throws {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("OpenSession", ["name": "passenger", "root": "settings.main"])
        let plugins = try await PluginsWatch.start(on: daemon)

        try FileManager.default.removeItem(atPath: "\(directory)/Settings")
        let refused = try await plugins.event { $0["name"] == "Settings" }
        #expect(refused["reason"]?["code"] == "inUse")
        let kept = try await PluginsWatch.listed("Settings", in: daemon)
        #expect(kept?["removalRefused"]?["rootOf"] == ["passenger"], "\(kept ?? .null)")

        try await nav.call("CloseSession", ["name": "passenger"])
        let removed = try await plugins.event { $0["name"] == "Settings" && $0["kind"] == "removed" }
        #expect(removed["version"] != nil)
        #expect(try await PluginsWatch.listed("Settings", in: daemon)?["state"] == "removed")
        try await daemon.terminate()
    }
}

// MARK: - Support

/// Deploying example plugins into a test's plugins folder the way an operator does, and changing their manifests.
enum PluginFolder {
    /// Deploys the staged example plugin `name` into `directory` (``TestPlugins/deploy(folder:as:into:edit:)``),
    /// with its manifest's version set to `version` and then `edit` applied to the copy before it is renamed into
    /// place.
    static func deploy(
        _ name: String,
        into directory: String,
        version: String? = nil,
        edit: (String) throws -> Void = { _ in }
    ) throws {
        try TestPlugins.deploy(folder: "\(DaemonProcess.examplePlugins)/\(name)", as: name, into: directory) { copy in
            if let version { try setManifest(in: copy, version: version) }
            try edit(copy)
        }
    }

    /// Rewrites members of the manifest in `folder`.
    static func setManifest(in folder: String, version: String? = nil, sha256: String? = nil) throws {
        let path = "\(folder)/manifest.json"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard case .object(var manifest) = try JSONParser().parse(bytes) else {
            throw TimedOut(what: "a manifest object in \(path)")
        }
        if let version { manifest["version"] = .string(version) }
        if let sha256 { manifest["sha256"] = .string(sha256) }
        try Data(JSONValue.object(manifest).serializedBytes()).write(to: URL(fileURLWithPath: path))
    }
}

/// `io.navhost.Plugins.Watch` on a connection of its own, recorded in the background.
struct PluginsWatch {
    let recorder: WatchRecorder
    /// The first reply: every plugin.
    let first: JSONObject

    static func start(on daemon: DaemonProcess) async throws -> PluginsWatch {
        let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let recorder = WatchRecorder(client.callMore("io.navhost.Plugins.Watch", parameters: [:]))
        let first = try await recorder.next { $0["plugins"] != nil }
        return PluginsWatch(recorder: recorder, first: first)
    }

    /// The next event satisfying `condition`.
    func event(within limit: Duration = .seconds(10), where condition: (JSONValue) -> Bool) async throws -> JSONValue {
        try await recorder.next(within: limit) { reply in reply["event"].map(condition) ?? false }["event"] ?? .null
    }

    /// Every event received so far.
    var events: [JSONValue] { recorder.replies.compactMap { $0["event"] } }

    /// `io.navhost.Plugins.List`'s entry for `name`.
    static func listed(_ name: String, in daemon: DaemonProcess) async throws -> JSONValue? {
        try await DaemonPluginReloadTests.listed(name, in: daemon)
    }

    /// Polls `condition` until it holds or ``pollUntil(within:_:)``'s limit passes.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        try await pollUntil(condition)
    }
}

extension JSONObject {
    /// The plugin names of a `plugins` list.
    fileprivate var names: [String] { self["plugins"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [] }
}
