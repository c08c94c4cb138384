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
        let kiosk = SessionRecord(
            session: "kiosk",
            revision: 3,
            nextScreenNumber: 2,
            stack: [screen(1, "products.list", ["filter": "lamp"])]
        )
        try SessionStateFile(directory: state, session: "main").save(main)
        try SessionStateFile(directory: state, session: "kiosk").save(kiosk)
        let before = try FileManager.default.contentsOfDirectory(atPath: "\(state)/sessions").sorted()

        let run = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", "\(state)/sessions"]
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
        #expect(run.errors.contains("it would be dropped, with the 1 screen above it"), "\(run.errors)")
        #expect(!run.errors.contains("kiosk"), "the kiosk's filter decodes: \(run.errors)")
        #expect(run.output.contains("4 saved screens of 2 sessions checked: 3 would not come back as they were"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(state)/sessions").sorted() == before)
        #expect(try SessionStateFile(directory: state, session: "main").load() == .record(main), "left as it was")

        try FileIO.remove("\(state)/sessions/main.json")
        let clean = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["check", plugins, "--sessions", "\(state)/sessions"]
        )
        #expect(clean.status == 0, "\(clean.errors)")
        #expect(clean.output.contains("1 saved screen of 1 session checked: every one comes back as it was"))
    }
}
