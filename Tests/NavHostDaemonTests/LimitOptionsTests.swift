import IntegrationHarness
import Testing

@Suite("The daemon's limit options")
struct LimitOptionsTests {
    @Test("--help lists every limit of docs/robustness.md's table with the default the table gives")
    func helpListsTheLimits() async throws {
        let help = try await ChildProcess.run(TestPaths.builtExecutable("navhostd"), ["--help"])
        #expect(help.status == 0)
        let text = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let table = try String(contentsOfFile: "\(TestPaths.packageRoot)/docs/robustness.md", encoding: .utf8)
        let rows = table.matches(of: /\n\| `(--[a-z-]+)` \| `([^`]+)`/).map { (String($0.1), String($0.2)) }
        #expect(rows.count >= 15, "the limits table of docs/robustness.md")
        for (option, defaultValue) in rows {
            let entry = try #require(text.range(of: "\(option) <"), "\(option) is listed")
            let rest = text[entry.upperBound...]
            // The entry ends where the next option's begins: ` --name <value>` (a description may name options).
            let next = rest.firstMatch(of: /\s--[a-z-]+ </)?.range.lowerBound ?? rest.endIndex
            #expect(rest[..<next].contains("(default: \(defaultValue))"), "\(option): \(rest[..<next])")
        }
    }

    @Test("--help's description is laid out by ArgumentParser: its lines are filled, not broken mid-sentence")
    func helpDescriptionIsFilled() async throws {
        let help = try await ChildProcess.run(TestPaths.builtExecutable("navhostd"), ["--help"])
        #expect(help.status == 0)
        let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The description is the paragraph after the overview's line and its blank line.
        let paragraph = lines.dropFirst(2).prefix { !$0.isEmpty }
        try #require(paragraph.count >= 2, "\(help.output)")
        for line in paragraph.dropLast() {
            #expect(line.count >= 60, "a line of the description ends early: \(line)")
        }
        #expect(paragraph.joined(separator: " ").contains("and serves io.navhost.Navigation and io.navhost.Plugins"))
    }

    @Test("--max-message-size and --max-json-depth reach the daemon: a message past either closes its connection")
    func messageLimitsAreHonoured() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: [
            "--max-message-size", "2K", "--max-json-depth", "4",
        ])
        let witness = try await Witness.connect(to: daemon, session: "main")
        func outcome(_ message: String) async throws -> [String] {
            let client = try await UnixStreamSocket.connect(to: daemon.socketPath)
            await client.write(Array(message.utf8) + [0])
            client.halfClose()
            let (bytes, _) = try await client.readUntilClosed()
            return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        }
        func stack(padding: Int, depth: Int) -> String {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            return #"{"method":"io.navhost.Navigation.Stack","parameters":{"session":"main"},"#
                + #""org.example.padding":""# + String(repeating: "p", count: padding) + #"","org.example.nested":"#
                + nested + "}"
        }
        #expect(try await outcome(stack(padding: 1_500, depth: 2)).count == 1, "within both limits: answered")
        #expect(try await outcome(stack(padding: 2_100, depth: 2)).isEmpty, "past 2K: closed")
        #expect(try await outcome(stack(padding: 10, depth: 4)).isEmpty, "nested past depth 4: closed")
        try await witness.confirm()
        #expect(try await daemon.terminate() == 0)
    }

    @Test(
        "A limit that makes no sense is refused before the daemon starts",
        arguments: [
            ["--max-message-size", "12"], ["--max-message-size", "lots"], ["--max-json-depth", "0"],
            ["--max-connections", "0"], ["--max-connections-per-uid", "-1"], ["--max-pending-calls", "0"],
            ["--watch-queue-limit", "1"], ["--partial-message-timeout", "off"], ["--send-timeout", "0s"],
            ["--intent-timeout", "soon"], ["--max-unfinished-total", "512"],
        ]
    )
    func nonsenseIsRefused(arguments: [String]) async throws {
        let directory = try TestPaths.temporaryDirectory()
        let result = try await ChildProcess.run(
            TestPaths.builtExecutable("navhostd"),
            arguments + ["--socket", "\(directory)/s.sock", "--state-dir", directory, "--plugins", directory]
        )
        #expect(result.status == 64, "a usage error: \(result.errors)")
        #expect(result.errors.contains(arguments[0]), "the message names the option: \(result.errors)")
    }

    @Test("A time or size that does not read says what one looks like")
    func unreadableValuesSayWhatIsExpected() async throws {
        let directory = try TestPaths.temporaryDirectory()
        for (option, value, expected) in [
            ("--intent-timeout", "0", "is not a time above zero like 30s, 500ms or 2m, or off"),
            ("--max-message-size", "1X", "is not a size like 1048576, 64K or 1M"),
        ] {
            let result = try await ChildProcess.run(
                TestPaths.builtExecutable("navhostd"),
                [option, value, "--socket", "\(directory)/s.sock", "--state-dir", directory, "--plugins", directory]
            )
            #expect(result.status == 64)
            #expect(result.errors.contains("\"\(value)\" \(expected)"), "\(result.errors)")
        }
    }
}
