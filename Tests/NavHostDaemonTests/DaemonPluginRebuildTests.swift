import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// A real new build of an example plugin, made while the tests run (``PluginRebuilder``), replacing the loaded one
/// in the running daemon.
///
/// The new build is Settings 1.1.0, whose defaults choose the dark theme: the intent `onTappedResetToDefaults`
/// answers `"theme": "dark"` where 1.0.0 answers `"system"`.
@Suite("Rebuilding an example plugin with changed behaviour while the daemon runs")
struct DaemonPluginRebuildTests {
    /// The plugins folder is not followed: these tests change it and then act by hand (Reload, SIGHUP).
    static let byHandOnly = ["--no-watch-plugins"]

    /// Settings 1.1.0, built once for the suite.
    static let settings = Task {
        try await PluginRebuilder.rebuild(
            plugin: "Settings",
            editing: [
                (
                    file: "Sources/Domain/Entities/Preferences.swift",
                    replace: "static let defaults = Preferences(theme: .system,",
                    with: "static let defaults = Preferences(theme: .dark,"
                )
            ],
            version: "1.1.0"
        )
    }

    /// Settings 2.0.0, whose one route is `settings.preferences`: `settings.main`, where the tests' session starts,
    /// is gone.
    static let settingsWithoutMain = Task {
        try await PluginRebuilder.rebuild(
            plugin: "Settings",
            editing: [
                (
                    file: "Sources/Presentation/Router/SettingsRoute.swift", replace: "case main",
                    with: "case preferences"
                ),
                (
                    file: "Sources/SettingsFeature.swift", replace: #"route: "settings.main""#,
                    with: #"route: "settings.preferences""#
                ),
                (file: "Sources/SettingsCoordinator.swift", replace: "case .main:", with: "case .preferences:"),
            ],
            version: "2.0.0"
        )
    }

    /// Products 1.1.0, whose catalog keeps its filter as `query` where 1.0.0 kept `filter`: a screen's state saved by
    /// either build does not decode in the other, and the screen starts fresh.
    static let productsWithRenamedState = Task {
        try await PluginRebuilder.rebuild(
            plugin: "Products",
            editing: [
                (
                    file: "Sources/Presentation/Features/Products/ViewModel/ProductsViewModel.swift",
                    replace: "        var filter: String\n    }\n\n    var restorableState",
                    with: "        var query: String\n    }\n\n    var restorableState"
                ),
                (
                    file: "Sources/Presentation/Features/Products/ViewModel/ProductsViewModel.swift",
                    replace: "RestorableState(filter: filter)",
                    with: "RestorableState(query: filter)"
                ),
                (
                    file: "Sources/Presentation/Features/Products/ViewModel/ProductsViewModel.swift",
                    replace: "filter = saved.filter",
                    with: "filter = saved.query"
                ),
            ],
            version: "1.1.0"
        )
    }

    /// UserProfile 2.0.0, whose `profile.user` takes `id` where 1.0.0 took `userID`.
    static let profileWithRenamedParameter = Task {
        try await PluginRebuilder.rebuild(
            plugin: "UserProfile",
            editing: [
                (
                    file: "Sources/Presentation/Router/ProfileRoute.swift",
                    replace: "case user(userID: String)",
                    with: "case user(id: String)"
                ),
                (
                    file: "Sources/UserProfileFeature.swift",
                    replace: "route: \"profile.user\",\n            parameters: [\"userID\"],",
                    with: "route: \"profile.user\",\n            parameters: [\"id\"],"
                ),
            ],
            version: "2.0.0"
        )
    }

    /// The library `make build` staged.
    static let original = "\(DaemonProcess.examplePlugins)/Settings/libSettingsFeature.so"

    @Test("The rebuilt library is different code, needing no library SwiftPM's build does not, and no copy of the SDK")
    func rebuiltLibraryIsLinkedLikeTheOriginal() async throws {
        let rebuilt = try await Self.settings.value
        let manifest = try JSONParser().parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: "\(DaemonProcess.examplePlugins)/Settings/manifest.json")))
        )

        #expect(rebuilt.version == "1.1.0")
        #expect(try await ELFFile.sha256(of: rebuilt.library) == rebuilt.sha256, "the manifest names the library")
        #expect(rebuilt.sha256 != manifest["sha256"]?.stringValue, "a different build")
        let (new, old) = (try await ELFFile(rebuilt.library), try await ELFFile(Self.original))
        // SwiftPM links every library of the product's dependency graph (json-c, through NavHostKit's CJSONC); a
        // plugin compiled against the SDK's interface needs only what its own code uses.
        #expect(Set(new.needed).isSubset(of: Set(old.needed)), "\(new.needed) against SwiftPM's \(old.needed)")
        #expect(new.needed.contains("libNavHostKit.so"))
        #expect(new.runPath == old.runPath)
        #expect(new.exported == old.exported, "the same dynamic symbols: the edit changed a value, not a declaration")
        #expect(new.sdkTypeDescriptors.isEmpty, "no copy of NavHostKit, swift-log or swift-collections types")
        #expect(old.sdkTypeDescriptors.isEmpty)
    }

    @Test("Reload of a rebuilt Settings renamed into place: the new code answers, the screen and its preferences stay")
    func reloadRunsTheRebuiltCode() async throws {
        let rebuilt = try await Self.settings.value
        let (directory, daemon, nav) = try await Self.startOnCopies()
        try await nav.call("Send", ["intent": "onTappedResetToDefaults"])
        #expect(try await nav.topState()["value"]?["theme"] == "system", "1.0.0 resets to the system's theme")
        try await nav.call("Send", ["intent": "onChangedTheme", "arguments": ["theme": "light"]])
        try await nav.call("Send", ["intent": "onChangedLanguage", "arguments": ["language": "fr"]])
        let screen = try #require(try await nav.snapshot()["stack"]?.arrayValue?.last?["id"])

        try PluginRebuilder.deploy(rebuilt, into: directory)
        let reply = try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Settings"])

        #expect(reply["plugin"]?["state"] == "loaded")
        #expect(reply["plugin"]?["version"] == "1.1.0")
        #expect(reply["plugin"]?["path"]?.stringValue?.hasSuffix("/plugin-images/Settings-2.so") == true)
        try await Self.waitForSettings(nav)
        let top = try #require(try await nav.snapshot()["stack"]?.arrayValue?.last)
        #expect(top["id"] == screen, "the same screen, rebuilt in place")
        #expect(top["state"]?["value"]?["theme"] == "light", "the preferences 1.0.0 saved")
        #expect(top["state"]?["value"]?["language"] == "fr")
        try await nav.call("Send", ["intent": "onTappedResetToDefaults"])
        #expect(try await nav.topState()["value"]?["theme"] == "dark", "1.1.0 answers: it resets to the dark theme")
        #expect(try await nav.topState()["value"]?["language"] == "en")
        let listed = try #require(try await DaemonPluginReloadTests.listed("Settings", in: daemon))
        #expect(listed["version"] == "1.1.0")
        #expect(listed["state"] == "loaded")
        #expect(listed["lastReloadFailure"] == nil || listed["lastReloadFailure"] == .null)
        try await daemon.terminate()
    }

    @Test("A new build without the route a session starts at is refused (inUse): the old build serves the session on")
    func reloadThatDropsASessionsRootIsRefused() async throws {
        let rebuilt = try await Self.settingsWithoutMain.value
        let (directory, daemon, nav) = try await Self.startOnCopies()
        try await nav.call("Send", ["intent": "onChangedTheme", "arguments": ["theme": "light"]])

        try PluginRebuilder.deploy(rebuilt, into: directory)
        let refusal = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Settings"])
        }

        #expect(refusal?.name == "io.navhost.Plugins.PluginRefused")
        #expect(refusal?.parameters["code"] == "inUse")
        let message = refusal?.parameters["message"]?.stringValue ?? ""
        #expect(message.contains("the new build has no route settings.main, where session main starts"), "\(message)")
        let listed = try #require(try await DaemonPluginReloadTests.listed("Settings", in: daemon))
        #expect(listed["version"] == "1.0.0")
        #expect(listed["lastReloadFailure"]?["code"] == "inUse")
        try await nav.call("Send", ["intent": "onChangedLanguage", "arguments": ["language": "fr"]])
        let state = try await nav.topState()["value"]
        #expect(state?["theme"] == "light" && state?["language"] == "fr", "the session's screen, served by 1.0.0")
        let unload = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        }
        #expect(unload?.parameters["code"] == "inUse", "the plugin still serves the session's root")
        try await daemon.terminate()
    }

    @Test(
        "A build refused for a session's root route is taken by itself once that session, opened over the wire, closes"
    )
    func refusedBuildIsTakenOnceTheSessionCloses() async throws {
        let rebuilt = try await Self.settingsWithoutMain.value
        let (directory, daemon, nav) = try await Self.startOnCopies(root: "home.main")
        try await nav.call("OpenSession", ["name": "kiosk", "root": "settings.main"])

        try PluginRebuilder.deploy(rebuilt, into: directory)
        let refusal = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "Settings"])
        }
        let message = refusal?.parameters["message"]?.stringValue ?? ""
        #expect(message.contains("close it first (navctl session close kiosk)"), "\(message)")
        #expect(try await DaemonPluginReloadTests.listed("Settings", in: daemon)?["version"] == "1.0.0")

        try await nav.call("CloseSession", ["name": "kiosk"])
        let listed = try await DaemonPluginReloadTests.listed("Settings", in: daemon)
        #expect(listed?["version"] == "2.0.0", "\(String(describing: listed))")
        #expect(listed?["lastReloadFailure"] == nil || listed?["lastReloadFailure"] == .null)
        try await daemon.terminate()
    }

    @Test("A new build that cannot show a session's root with its parameters is refused (inUse) until it closes")
    func reloadThatRefusesARootsParametersIsRefused() async throws {
        let rebuilt = try await Self.profileWithRenamedParameter.value
        let (directory, daemon, nav) = try await Self.startOnCopies(root: "home.main")
        try await nav.call("OpenSession", ["name": "kiosk", "root": "profile.user", "parameters": ["userID": "u1"]])

        try PluginRebuilder.deploy(rebuilt, into: directory)
        let refusal = await #expect(throws: VarlinkError.self) {
            try await DaemonPluginReloadTests.plugins(daemon, "Reload", ["name": "UserProfile"])
        }

        #expect(refusal?.parameters["code"] == "inUse")
        let message = refusal?.parameters["message"]?.stringValue ?? ""
        #expect(message.contains("the new build cannot show profile.user, where session kiosk starts"), "\(message)")
        #expect(try await DaemonPluginReloadTests.listed("UserProfile", in: daemon)?["version"] == "1.0.0")
        try await nav.call("CloseSession", ["name": "kiosk"])
        #expect(try await DaemonPluginReloadTests.listed("UserProfile", in: daemon)?["version"] == "2.0.0")
        try await daemon.terminate()
    }

    @Test("A reload that removes a screen keeps the session's record from before aside, and says so where it is")
    func reloadThatRemovesAScreenKeepsTheRecordAside() async throws {
        let rebuilt = try await Self.settingsWithoutMain.value
        let (directory, daemon, nav) = try await Self.startOnCopies(root: "home.main")
        let screen = try await Self.showSettings(nav)
        let plugins = try await PluginsWatch.start(on: daemon)

        try PluginRebuilder.deploy(rebuilt, into: directory)
        let reload = try await Self.navctl(daemon, ["plugins", "reload", "Settings"])

        #expect(reload.status == 0, "\(reload.errors)")
        #expect(try await nav.snapshot()["stack"]?.arrayValue?.map { $0["route"] } == ["home.main"])
        let sessions = "\(daemon.stateDirectory)/sessions"
        let aside = try FileManager.default.contentsOfDirectory(atPath: sessions).filter {
            $0.hasPrefix("main.json.lost-")
        }
        #expect(aside.count == 1, "\(aside)")
        let kept = try String(contentsOfFile: "\(sessions)/\(aside.first ?? "-")", encoding: .utf8)
        #expect(kept.contains(#""route":"home.main""#) && kept.contains(#""route":"settings.main""#), "\(kept)")
        let lost: JSONValue = [
            [
                "session": "main", "startedFresh": [], "removed": [.string(screen)],
                "keptAside": .string("\(sessions)/\(aside.first ?? "-")"),
            ]
        ]
        #expect(try await DaemonPluginReloadTests.listed("Settings", in: daemon)?["lostAtReload"] == lost)
        #expect(try await plugins.event { $0["kind"] == "reloaded" }["lost"] == lost)
        #expect(
            reload.errors.contains(
                "warning: session main: screen \(screen) removed (this build cannot show it); its record from "
                    + "before is kept in \(sessions)/main.json.lost-"
            ),
            "\(reload.errors)"
        )
        let list = try await Self.navctl(daemon, ["plugins", "list"])
        #expect(
            list.output.contains("its reload removed \(screen) in session main, record before in"),
            "\(list.output)"
        )
        try await daemon.terminate()
    }

    @Test(
        "plugins wait (make install) says the build reloaded and warns of the screens it took, once: not when put in place again"
    )
    func waitWarnsOfLostScreens() async throws {
        let rebuilt = try await Self.settingsWithoutMain.value
        // The plugins folder followed: the daemon takes the deployed build by itself.
        let (directory, daemon, nav) = try await Self.startOnCopies(root: "home.main", watchingPlugins: true)
        let screen = try await Self.showSettings(nav)

        try PluginRebuilder.deploy(rebuilt, into: directory)
        // Taken before navctl asks, so that no event tells it: the plugin itself says it was reloaded, from what.
        _ = try await pollUntil {
            try await DaemonPluginReloadTests.listed("Settings", in: daemon)?["version"] == "2.0.0"
        }
        let wait = try await Self.navctl(daemon, ["plugins", "wait", "\(directory)/Settings"])

        #expect(wait.status == 0, "\(wait.errors)")
        #expect(wait.output.hasPrefix("reloaded Settings 1.0.0 → 2.0.0 from "), "\(wait.output)")
        #expect(
            wait.errors.contains("warning: session main: screen \(screen) removed (this build cannot show it)"),
            "\(wait.errors)"
        )

        // The same build put in place again: checked, and what its reload cost is not said again as if new.
        try PluginRebuilder.deploy(rebuilt, into: directory)
        let again = try await Self.navctl(daemon, ["plugins", "wait", "\(directory)/Settings"])
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output == "checked Settings 2.0.0 from \(directory)/Settings\n", "\(again.output)")
        #expect(!again.errors.contains("warning:"), "\(again.errors)")
        try await daemon.terminate()
    }

    @Test("Writing a rebuilt plugin in place over the old one leaves exactly the new build's files")
    func writeInPlaceLeavesTheNewFiles() async throws {
        let rebuilt = try await Self.settings.value
        let directory = try TestPaths.temporaryDirectory()
        try FileManager.default.copyItem(
            atPath: "\(DaemonProcess.examplePlugins)/Settings",
            toPath: "\(directory)/Settings"
        )

        try await PluginRebuilder.writeInPlace(rebuilt, into: directory, pause: .milliseconds(10))

        let files = try FileManager.default.contentsOfDirectory(atPath: "\(directory)/Settings").sorted()
        #expect(files == (try FileManager.default.contentsOfDirectory(atPath: rebuilt.directory).sorted()))
        for file in files {
            let written = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/Settings/\(file)"))
            #expect(written == (try Data(contentsOf: URL(fileURLWithPath: "\(rebuilt.directory)/\(file)"))), "\(file)")
        }
    }

    @Test("An edit whose text is not in the file stops the rebuild before anything is compiled")
    func missingEditFails() async throws {
        let failure = await #expect(throws: PluginRebuilder.Failure.self) {
            try await PluginRebuilder.rebuild(
                plugin: "Settings",
                editing: [(file: "Sources/SettingsFeature.swift", replace: "no such text", with: "")],
                version: "1.1.0"
            )
        }
        #expect(failure?.message.contains("Sources/SettingsFeature.swift holds 0 occurrences") == true)
    }

    // MARK: - Helpers

    /// A daemon loading copies of the example plugins (in `directory`, changed by hand only unless
    /// `watchingPlugins`), its session `main` at `root` (the settings, loaded, unless told otherwise), and a client of
    /// it.
    static func startOnCopies(
        root: String = "settings.main",
        watchingPlugins: Bool = false,
        extraArguments: [String] = []
    ) async throws -> (directory: String, daemon: DaemonProcess, nav: NavigationClient) {
        let directory = try TestPlugins.copies()
        let daemon = try await DaemonProcess.start(
            plugins: directory,
            sessions: ["main=\(root)"],
            extraArguments: (watchingPlugins ? [] : byHandOnly) + extraArguments
        )
        let nav = try await NavigationClient.connect(to: daemon)
        if root == "settings.main" { try await waitForSettings(nav) }
        return (directory, daemon, nav)
    }

    /// Navigates `nav`'s session to the settings and waits until they are loaded; returns the screen's ID.
    static func showSettings(_ nav: NavigationClient) async throws -> String {
        let navigated = try await nav.call("Navigate", ["route": "settings.main"])
        let screen = try #require(navigated["screen"]?["id"]?.stringValue)
        try await waitForSettings(nav)
        return screen
    }

    /// Runs the built navctl against `daemon`.
    static func navctl(_ daemon: DaemonProcess, _ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(TestPaths.builtExecutable("navctl"), ["--socket", daemon.socketPath] + arguments)
    }

    /// Waits until the top screen, the settings, shows loaded preferences.
    static func waitForSettings(_ nav: NavigationClient) async throws {
        if try await pollUntil({ try await nav.topState()["status"] == "loaded" }) { return }
        throw TimedOut(what: "the settings to load: \(try await nav.topState())")
    }
}

/// What `readelf` and `nm` (binutils, which the toolchain's linker comes with) tell about a shared library.
private struct ELFFile {
    /// The `NEEDED` entries: the libraries the dynamic linker loads with it, by the names they were linked as.
    var needed: [String]
    /// The `RUNPATH` entry.
    var runPath: String?
    /// The symbols it exports.
    var exported: Set<String>
    /// The type and protocol descriptors it defines for types of the SDK's modules or of the packages the SDK
    /// links in: any would be a second copy of those types, and casts across the plugin boundary would fail.
    var sdkTypeDescriptors: [String]

    init(_ path: String) async throws {
        let dynamic = try await Self.output("/usr/bin/readelf", ["-d", path])
        func entries(_ tag: String) -> [String] {
            dynamic.split(separator: "\n").filter { $0.contains("(\(tag))") }.compactMap { line in
                line.firstRange(of: /\[(.*)\]/).map { String(line[$0].dropFirst().dropLast()) }
            }
        }
        needed = entries("NEEDED")
        runPath = entries("RUNPATH").first
        exported = Set(try await Self.symbols(["-D", "--defined-only", path]))
        let sdkModules = /^\$s(10NavHostKit|11NavHostJSON|7Logging|18OrderedCollections|28InternalCollectionsUtilities)/
        sdkTypeDescriptors = try await Self.symbols(["--defined-only", path]).filter {
            $0.firstMatch(of: sdkModules) != nil && ($0.hasSuffix("Mn") || $0.hasSuffix("Mp"))
        }
    }

    /// The SHA-256 of a file, in hex.
    static func sha256(of path: String) async throws -> String {
        String(try await output("/usr/bin/sha256sum", [path]).prefix(64))
    }

    /// The names `nm` lists.
    private static func symbols(_ arguments: [String]) async throws -> [String] {
        try await output("/usr/bin/nm", arguments).split(separator: "\n").compactMap {
            $0.split(separator: " ").last.map(String.init)
        }
    }

    private static func output(_ executable: String, _ arguments: [String]) async throws -> String {
        let result = try await ChildProcess.run(executable, arguments)
        try #require(result.status == 0, "\(executable) \(arguments): \(result.errors)")
        return result.output
    }
}
