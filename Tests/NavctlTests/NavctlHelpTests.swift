import Testing

/// `navctl --help` and each subcommand's help, as the built binary prints them.
@Suite("navctl help")
struct NavctlHelpTests {
    static let subcommands = [
        "stack", "watch", "sessions", "routes", "plugins", "navigate", "present", "pop", "root", "popto", "dismiss",
        "replace", "send", "plugins list", "plugins load", "plugins reload", "plugins unload", "plugins watch",
        "session", "session open", "session close", "session list", "inspect",
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
        try Snapshots.assertMatches(run, named: "help-\(words.joined(separator: "-"))")
    }

    @Test("--version names navctl and the SDK version")
    func version() async throws {
        let run = try await Navctl.run(["--version"])
        #expect(run.status == 0)
        try Snapshots.assertMatches(run, named: "version")
    }
}
