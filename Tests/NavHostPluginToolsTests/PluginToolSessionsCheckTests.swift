import Foundation
import IntegrationHarness
import NavHostKit
import NavHostStorage
import Testing

/// `navhost-plugin-tool check --sessions`: what the plugins of a folder would make of the screens a daemon's sessions
/// saved, asked before the build is installed.
@Suite("navhost-plugin-tool check against saved sessions")
struct PluginToolSessionsCheckTests {
    @Test("A saved state that no longer decodes and a screen whose parameters no longer fit fail the check")
    func savedScreensThatWouldNotComeBack() async throws {
        let plugins = try TestPlugins.copies()
        let state = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileIO.makeDirectories("\(state)/sessions")
        func screen(_ number: Int, _ route: String, _ restorable: JSONValue? = nil) -> SessionRecord.Screen {
            SessionRecord.Screen(
                id: ScreenID("s\(number)"),
                route: route,
                parameters: [:],
                presentation: .push,
                restorable: restorable
            )
        }
        let main = SessionRecord(
            session: "main",
            revision: 9,
            nextScreenNumber: 5,
            stack: [
                screen(1, "home.main"),
                screen(2, "products.list", ["filter": 7]),  // Products keeps its filter as a string
                screen(3, "products.detail"),  // without the productID it needs
                screen(4, "settings.main"),
            ]
        )
        // The kiosk's snapshot holds a filter that does not decode; the journal line after it, which is the record,
        // one that does.
        let kiosk = SessionRecord(
            session: "kiosk",
            revision: 3,
            nextScreenNumber: 2,
            stack: [screen(1, "products.list", ["filter": 7])]
        )
        var kioskNow = kiosk
        kioskNow.revision = 4
        kioskNow.stack = [screen(1, "products.list", ["filter": "lamp"])]
        // A root whose parameters no longer fit; a route of Products' namespace that no plugin lists.
        let profile = SessionRecord(
            session: "profile",
            revision: 2,
            nextScreenNumber: 2,
            stack: [screen(1, "profile.user")]
        )
        let archive = SessionRecord(
            session: "archive",
            revision: 2,
            nextScreenNumber: 3,
            stack: [screen(1, "home.main"), screen(2, "products.archive")]
        )
        try SessionStateFile(directory: state, session: "main").save(main)
        let kioskFile = SessionStateFile(directory: state, session: "kiosk")
        try kioskFile.write(kioskNow, after: try kioskFile.save(kiosk))
        try SessionStateFile(directory: state, session: "profile").save(profile)
        try SessionStateFile(directory: state, session: "archive").save(archive)
        let before = try FileManager.default.contentsOfDirectory(atPath: "\(state)/sessions").sorted()

        // The state folder itself will do: its sessions are read.
        let run = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", state]
        )

        #expect(run.status == 1, "\(run.output) \(run.errors)")
        #expect(
            run.errors.contains(
                "Error: session main: screen s2 (products.list) would start fresh with Products 1.0.0: its saved "
                    + "state does not come back ("
            ),
            "\(run.errors)"
        )
        #expect(
            run.errors.contains("Error: session main: screen s3 (products.detail) cannot be shown by Products 1.0.0 ("),
            "\(run.errors)"
        )
        #expect(run.errors.contains("it would be dropped, with 1 screen above it"), "\(run.errors)")
        #expect(!run.errors.contains("kiosk"), "the kiosk's filter, in its journal, decodes: \(run.errors)")
        #expect(
            run.errors.contains(
                "Error: session profile: screen s1 (profile.user) cannot be shown by UserProfile 1.0.0 ("
            ) && run.errors.contains("the session would lose its whole stack"),
            "\(run.errors)"
        )
        // Of Products' namespace, listed by no plugin: Products' new build may drop it, so the check cannot pass.
        #expect(
            run.errors.contains("Error: a saved screen shows products.archive, which no plugin checked lists"),
            "\(run.errors)"
        )
        #expect(
            run.output.contains(
                "4 saved sessions, 7 screens checked: 4 would not come back as they were; 1 screen on a route no "
                    + "plugin lists, not checked"
            ),
            "\(run.output)"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(state)/sessions").sorted() == before)
        #expect(try SessionStateFile(directory: state, session: "main").load() == .record(main), "left as it was")

        // The daemon's plugins folder says whose products.archive was: Products', whose new build drops it.
        let installed = try TestPlugins.copies(of: ["Products"])
        let manifestPath = "\(installed)/Products/manifest.json"
        var manifest = try #require(try JSONParser().parse(try FileIO.readFile(manifestPath)).objectValue)
        manifest["routes"] = .array(
            (manifest["routes"]?.arrayValue ?? []) + [
                ["route": "products.archive", "parameters": [], "intents": [], "summary": "Sold out products."]
            ]
        )
        try FileIO.writeAtomically(try JSONValue.object(manifest).serializedBytes(), to: manifestPath)
        let owned = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", state, "--installed", installed]
        )
        #expect(
            owned.errors.contains(
                "Error: session archive: screen s2 (products.archive) cannot be shown by Products 1.0.0"
            ),
            "\(owned.errors)"
        )
        #expect(!owned.errors.contains("a saved screen shows products.archive"), "\(owned.errors)")

        // A folder that holds no build of Products is not the one the daemon loads it from: said, and no pass.
        let elsewhere = try TestPlugins.copies(of: ["Home"])
        let wrongFolder = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", state, "--installed", elsewhere, "--accept-loss", "products.list"]
        )
        #expect(wrongFolder.status == 1)
        #expect(wrongFolder.errors.contains("note: \(elsewhere) holds no build of Products"), "\(wrongFolder.errors)")
        #expect(
            wrongFolder.errors.contains(
                "Error: a saved screen shows products.archive, which no plugin in \(elsewhere) lists"
            ),
            "\(wrongFolder.errors)"
        )

        // A route no plugin lists, its loss accepted: noted, and counted as accepted.
        let unlisted = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", state, "--accept-loss", "products.archive"]
        )
        #expect(
            unlisted.errors.contains(
                "note: a saved screen shows products.archive, which no plugin lists: not checked, its loss accepted"
            ),
            "\(unlisted.errors)"
        )
        #expect(unlisted.output.contains("; 1 accepted as lost (--accept-loss)"), "\(unlisted.output)")

        // Losses accepted route by route are noted, and pass; a screen above a dropped one goes too, and counts unless
        // its route is accepted as well.
        let accepted = ["products.list", "products.detail", "products.archive", "profile.user"]
        let partly = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", state, "--installed", installed]
                + accepted.flatMap { ["--accept-loss", $0] }
        )
        #expect(partly.status == 1, "\(partly.errors)")
        #expect(
            partly.errors.contains(
                "(accepted for products.detail, not for 1 screen above it on other routes: --accept-loss those too)"
            ),
            "\(partly.errors)"
        )
        let accepting = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", state, "--installed", installed]
                + (accepted + ["settings.main"]).flatMap { ["--accept-loss", $0] }
        )
        #expect(accepting.status == 0, "\(accepting.errors)")
        #expect(
            accepting.errors.contains(
                "note: session archive: screen s2 (products.archive) cannot be shown by Products 1.0.0"
            ) && accepting.errors.contains("(accepted: --accept-loss products.archive)"),
            "\(accepting.errors)"
        )
        #expect(!accepting.errors.contains("Error:"), "\(accepting.errors)")
        #expect(accepting.output.contains("checked: none lost but those accepted; "), "\(accepting.output)")
        #expect(accepting.output.contains(" accepted as lost (--accept-loss)"), "\(accepting.output)")

        try FileIO.remove("\(state)/sessions/main.json")
        try FileIO.remove("\(state)/sessions/profile.json")
        try FileIO.remove("\(state)/sessions/archive.json")
        let clean = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", "\(state)/sessions"]
        )
        #expect(clean.status == 0, "\(clean.errors)")
        #expect(clean.output.contains("1 saved session, 1 screen checked: every one comes back as it was"))
    }
}
