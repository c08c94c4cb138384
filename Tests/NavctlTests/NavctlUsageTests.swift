import Testing

/// Usage errors: ArgumentParser's message and usage on standard error, exit code 64 (EX_USAGE), and no connection
/// made (the socket named does not exist, and would give 69).
@Suite("navctl usage errors")
struct NavctlUsageTests {
    @Test(
        "A bad command line exits with 64 and says what is wrong",
        arguments: [
            ("usage-missing-route", ["navigate", "--socket", "/nonexistent/io.navhost"]),
            ("usage-not-key-value", ["navigate", "products.detail", "p3"]),
            ("usage-empty-key", ["send", "onChangedFilter", "=lamp"]),
            ("usage-repeated-key", ["send", "onChangedFilter", "text=a", "text=b"]),
            ("usage-replace-parameters-first", ["replace", "productID=p3", "products.detail"]),
            // Once sent as 1e+20: json-c reads an integer outside Int64 as a floating-point number.
            ("usage-integer-outside-int64", ["send", "onTappedProduct", "ids=[1,99999999999999999999]"]),
            ("usage-unknown-subcommand", ["teleport", "home.main"]),
            ("usage-misspelt-subcommand", ["--socket", "/nonexistent/io.navhost", "naviagte", "products.list"]),
            // A group's own: ArgumentParser gave the words to `plugins list`, "2 unexpected arguments", its usage.
            ("usage-misspelt-plugins-subcommand", ["plugins", "relaod", "Products"]),
            ("usage-misspelt-session-subcommand", ["--socket", "/nonexistent/io.navhost", "session", "opne", "kiosk"]),
            // Once the whole help on standard output, exit code 0.
            ("usage-no-command", []),
            ("usage-options-without-command", ["--json", "--socket", "/nonexistent/io.navhost"]),
            ("usage-help-unknown-command", ["help", "nope"]),
            ("usage-unknown-option", ["stack", "--sesion", "main"]),
            ("usage-negative-revision", ["watch", "--resume-from", "-1"]),
            ("usage-replay-session", ["replay", "bug.navrec", "--session", "main"]),
            // The session is the argument: --session, once silently ignored, is refused.
            ("usage-session-open-session", ["session", "open", "kiosk", "home.main", "--session", "desk"]),
            ("usage-session-close-session", ["session", "close", "kiosk", "--session", "desk"]),
            // Commands that act on no one session: --session, once silently ignored, is refused, before the command
            // or after it.
            ("usage-routes-session", ["routes", "--session", "kiosk"]),
            ("usage-plugins-reload-session", ["--session=kiosk", "plugins", "reload", "Products"]),
            ("usage-sessions-session", ["sessions", "--session", "kiosk"]),
            ("usage-inspect-json", ["inspect", "--json"]),
            ("usage-inspect-timeout", ["--timeout=5", "inspect"]),
            ("usage-record-json", ["record", "-o", "/nonexistent/bug.navrec", "--json"]),
            // Once a trap in navctl (exit 132): inf seconds do not fit Int64 milliseconds.
            ("usage-session-intent-timeout-inf", ["session", "open", "kiosk", "home.main", "--intent-timeout", "inf"]),
            (
                "usage-session-intent-timeout-tiny",
                ["session", "open", "kiosk", "home.main", "--intent-timeout", "0.0001"]
            ),
            // navhostd's spelling of no limit, which OpenSession has no value for.
            ("usage-session-intent-timeout-off", ["session", "open", "kiosk", "home.main", "--intent-timeout", "off"]),
            (
                "usage-session-stack-too-deep",
                ["session", "open", "kiosk", "home.main", "--max-stack-depth", "2000000"]
            ),
            // Said before any connection, naming the path and the limit: 118 bytes, 107 at most.
            (
                "usage-socket-too-long",
                ["stack", "--socket", "/nonexistent/\(String(repeating: "s", count: 94))/io.navhost"]
            ),
            // Once "daemonUnreachable:  is not a socket", exit 69.
            ("usage-socket-empty", ["stack", "--socket", ""]),
        ]
    )
    func usageError(name: String, arguments: [String]) async throws {
        let run = try await Navctl.run(arguments, environment: ["NAVHOST_SOCKET": "/nonexistent/io.navhost"])
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        try Snapshots.assertMatches(run, named: name)
    }
}
