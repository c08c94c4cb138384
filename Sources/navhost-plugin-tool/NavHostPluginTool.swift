import ArgumentParser
import Glibc
import NavHostCommandLine
import NavHostKit
import NavHostPluginHost

/// `navhost-plugin-tool`: the build's and the feature author's tool for NavHost plugins.
///
/// ```sh
/// navhost-plugin-tool stage --build-dir .build/debug Plugins/Products Plugins/Settings
/// navhost-plugin-tool new Orders
/// navhost-plugin-tool check .build/debug/plugins
/// ```
///
/// Synchronous, every command of it: a plugin that links Foundation (directly, or through a package like Yams) makes
/// Foundation's run loop take the main dispatch queue over when `stage` or `check` loads it, and an `async` main,
/// whose work and exit go through that queue, then never ends (nothing drains it). navhostd has its own main executor
/// (`MainThreadEventLoop`) for that reason.
@main
struct NavHostPluginTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navhost-plugin-tool",
        abstract: "Writes manifests for, stages, scaffolds and checks NavHost feature plugins.",
        // The SDK it builds manifests for: the version a plugin it stages says it was built against.
        version: "navhost-plugin-tool (NavHostKit \(NavHostKitVersion.current))",
        subcommands: [Manifest.self, Stage.self, New.self, List.self, Check.self, Run.self]
    )

    /// ArgumentParser's `main`, with a word that is no command named as such first (``UnknownCommand``).
    static func main() {
        exitOnUnknownCommand()
        main(nil)
    }
}

/// Writes `line` and a line break to standard error, at once (a warning, a failure's reason).
func printToStandardError(_ line: String) {
    // What went to standard output before comes first where both go to one pipe (a build's log): every stream flushed.
    fflush(nil)
    let bytes = Array("\(line)\n".utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Exits with 1, saying why, when `directory` is no plugins folder (``PluginDirectory/problemAsPluginsFolder(_:)``).
func refuseIfNoPluginsFolder(_ directory: String) throws {
    guard let problem = PluginDirectory.problemAsPluginsFolder(directory) else { return }
    printToStandardError("Error: \(problem)")
    throw ExitCode.failure
}

/// Options shared by the commands that read a build.
struct BuildOptions: ParsableArguments {
    @Option(help: "The SwiftPM build folder that holds lib<Name>Feature.so.")
    var buildDir = ".build/debug"
}
