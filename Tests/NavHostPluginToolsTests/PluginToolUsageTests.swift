import Foundation
import IntegrationHarness
import Testing

/// `navhost-plugin-tool` run as a feature author runs it, with a command line it cannot take.
@Suite("navhost-plugin-tool's usage errors")
struct PluginToolUsageTests {
    @Test(
        "A mistyped command is named, with the command it is likely a typo of, and exits 64",
        arguments: [
            (["nwe", "Favorites"], "unknown command 'nwe'; did you mean 'new'?"),
            (["stgae", "Plugins/Home"], "unknown command 'stgae'; did you mean 'stage'?"),
            (["teleport"], "unknown command 'teleport' (navhost-plugin-tool --help lists the commands)"),
        ]
    )
    func mistypedCommand(arguments: [String], message: String) async throws {
        let run = try await ChildProcess.run(TestPaths.builtExecutable("navhost-plugin-tool"), arguments)
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains(message), "\(run.errors)")
    }

    @Test("A command it has still runs: help, and list of a folder that holds no plugin")
    func knownCommand() async throws {
        let help = try await ChildProcess.run(TestPaths.builtExecutable("navhost-plugin-tool"), ["help", "new"])
        #expect(help.status == 0 && help.output.contains("navhost-plugin-tool new"), "\(help.errors)")
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = try await ChildProcess.run(TestPaths.builtExecutable("navhost-plugin-tool"), ["list", folder])
        #expect(list.status == 0, "\(list.errors)")
        #expect(list.errors == "no plugin in \(folder)\n")
    }

    @Test(
        "--generate-completion-script's shell is its value, not an unknown command",
        arguments: [("bash", "-F _navhost-plugin-tool navhost-plugin-tool"), ("zsh", "#compdef navhost-plugin-tool")]
    )
    func completionScript(shell: String, mark: String) async throws {
        let run = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["--generate-completion-script", shell]
        )
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains(mark))
    }

    @Test("check of a plugin whose hard dependency is not beside it says where check looks for it")
    func checkWithoutAHardDependency() async throws {
        let folder = try TestPlugins.copies(of: ["Home"])
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        try TestPlugins.makeHardDependency(of: "Home", on: "Settings", in: folder)
        let run = try await ChildProcess.run(TestPaths.builtExecutable("navhost-plugin-tool"), ["check", folder])
        #expect(run.status == 1)
        #expect(run.output.contains("dependencyMissing: needs Settings"), "\(run.output)")
        #expect(
            run.errors.contains(
                "hint: check loads a plugin's hard dependencies from \(folder) only: copy the staged folder of "
                    + "Settings there"
            ),
            "\(run.errors)"
        )
    }

    @Test("check of a plugin whose coordinator crashes on a route names the plugin and the route before the crash")
    func checkOfACoordinatorThatCrashes() async throws {
        let folder = try await TestPlugins.directory(fixtures: ["FaultPlugin"])
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let run = try await ChildProcess.run(
            "/usr/bin/env",
            [
                "NAVHOST_FAULTY_ROUTE=trap", "SWIFT_BACKTRACE=enable=no",
                TestPaths.builtExecutable("navhost-plugin-tool"), "check", folder,
            ]
        )
        #expect(run.status != 0 && run.status != 1, "\(run.output) \(run.errors)")
        #expect(
            run.errors.contains(
                "Error: Faulty crashed when its coordinator was asked for the route faulty.main with no parameters"
            ),
            "\(run.errors)"
        )
    }

    @Test(
        "list and check of a folder that is no plugins folder say what it is and exit 1",
        arguments: ["list", "check"]
    )
    func noPluginsFolder(command: String) async throws {
        let cases = [
            ("/nonexistent", "Error: /nonexistent is not a folder"),
            (
                "\(DaemonProcess.examplePlugins)/Home",
                "is one plugin's folder, not a folder of plugins: give the folder that holds it, "
                    + DaemonProcess.examplePlugins
            ),
            (
                "\(TestPaths.packageRoot)/Plugins/Home",
                "is a plugin's package, not a folder of plugins: give the folder of staged plugins, the checkout's "
                    + ".build/debug/plugins"
            ),
        ]
        for (folder, message) in cases {
            let run = try await ChildProcess.run(TestPaths.builtExecutable("navhost-plugin-tool"), [command, folder])
            #expect(run.status == 1, "\(command) \(folder)")
            #expect(run.output.isEmpty, "\(command) \(folder): \(run.output)")
            #expect(run.errors.contains(message), "\(command) \(folder): \(run.errors)")
        }
    }
}
