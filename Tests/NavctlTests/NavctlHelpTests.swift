import Testing

/// `navctl --help` and each subcommand's help, as the built binary prints them.
@Suite("navctl help")
struct NavctlHelpTests {
    static let subcommands = [
        "stack", "watch", "sessions", "routes", "plugins", "navigate", "present", "pop", "root", "popto", "dismiss",
        "replace", "send", "plugins list", "plugins load", "plugins reload", "plugins unload", "plugins watch",
        "plugins wait",
        "session", "session open", "session close", "session list", "inspect", "record", "replay",
    ]

    @Test("navctl --help lists the subcommands, examples and exit codes")
    func rootHelp() async throws {
        let run = try await Navctl.run(["--help"])
        #expect(run.status == 0)
        try Snapshots.assertMatches(run, named: "help")
    }

    @Test("Each subcommand's help has its usage, options and examples", arguments: subcommands)
    func subcommandHelp(subcommand: String) async throws {
        let words = subcommand.split(separator: " ").map(String.init)
        let run = try await Navctl.run(words + ["--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("Examples:"))
        // Each example on a line of its own, indented two spaces: a long unbroken word before them (a JSON reply
        // without spaces) made ArgumentParser's wrapping put a blank line and a one-space indent there.
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        if let examples = lines.firstIndex(of: "Examples:") {
            let first = lines.index(after: examples)
            #expect(lines[first].hasPrefix("  navctl "), "\(lines[first])")
        }
        try Snapshots.assertMatches(run, named: "help-\(words.joined(separator: "-"))")
    }

    @Test("--version names navctl and the SDK version")
    func version() async throws {
        let run = try await Navctl.run(["--version"])
        #expect(run.status == 0)
        try Snapshots.assertMatches(run, named: "version")
    }
}
