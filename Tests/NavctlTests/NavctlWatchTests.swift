import Foundation
import IntegrationHarness
import NavHostJSON
import Testing

/// `navctl watch` against scripted streams: what it prints per update, and how it ends.
@Suite("navctl watch")
struct NavctlWatchTests {
    static let updates: [JSONObject] = [
        ["snapshot": NavigationSamples.snapshot(revision: 4, stack: [NavigationSamples.home])],
        ["event": ["revision": 5, "kind": "pushed", "screen": NavigationSamples.productList]],
        [
            "event": [
                "revision": 6, "kind": "stateChanged", "screenID": "s2",
                "state": [
                    "status": "loaded", "value": ["filter": "", "products": [], "matchCount": 0, "totalCount": 6],
                ],
            ]
        ],
        ["event": ["revision": 7, "kind": "errorChanged", "screenID": "s2", "error": "onChangedFilter timed out"]],
        ["event": ["revision": 8, "kind": "pushed", "screen": NavigationSamples.settings]],
        ["snapshot": NavigationSamples.snapshot(revision: 12, stack: [NavigationSamples.home]), "coalesced": true],
        [
            "event": [
                "revision": 13, "kind": "replaced", "stack": [NavigationSamples.home, NavigationSamples.productDetail],
            ]
        ],
        ["event": ["revision": 14, "kind": "popped", "removed": ["s3"]]],
    ]

    @Test(
        "Each update is printed as it comes, and the watch ends with 0 when the daemon ends it",
        arguments: [("watch-lines", [String]()), ("watch-json", ["--json"])]
    )
    func streamEndedByDaemon(name: String, options: [String]) async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Navigation.Watch": .stream(Self.updates, end: .finalReply)
        ])
        let run = try await Navctl.run(["watch"] + options + ["--socket", service.socketPath])
        await service.stop()
        #expect(run.status == 0)
        if options.contains("--json") {
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(try lines.map { try JSONParser().parse($0) } == Self.updates.map(JSONValue.object))
        }
        try Snapshots.assertMatches(run, named: name, replacing: [service.socketPath: "<socket>"])
    }

    @Test("Ctrl-C (SIGINT) ends a watch with 0, after what it has printed", arguments: [SIGINT, SIGTERM])
    func interrupted(signal: Int32) async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Navigation.Watch": .stream(Array(Self.updates.prefix(2)), end: .never)
        ])
        let watch = try RunningNavctl(["watch", "--json", "--session", "kiosk", "--socket", service.socketPath])
        _ = try await watch.waitForLines(2)
        watch.send(signal: signal)
        let run = try await watch.waitForExit()
        await service.stop()

        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        #expect(run.output.split(separator: "\n").count == 2)
        #expect(service.calls.map(\.parameters) == [["session": "kiosk"]])
    }

    @Test("A daemon that shuts down ends the watch with 0; one that fails it, with its error")
    func endedByErrors() async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Navigation.Watch": .stream(
                [Self.updates[0]],
                end: .error("io.navhost.varlink.ServiceShuttingDown")
            )
        ])
        let shutDown = try await Navctl.run(["watch", "--json", "--socket", service.socketPath])
        service.answer(
            "io.navhost.Navigation.Watch",
            with: .stream([Self.updates[0]], end: .error("io.navhost.Navigation.WatcherTooSlow"))
        )
        let tooSlow = try await Navctl.run(["watch", "--json", "--socket", service.socketPath])
        service.answer(
            "io.navhost.Navigation.Watch",
            with: .error("io.navhost.Navigation.SessionNotFound", ["session": "kiosk"])
        )
        let noSession = try await Navctl.run(["watch", "--session", "kiosk", "--socket", service.socketPath])
        await service.stop()

        #expect(shutDown.status == 0)
        #expect(shutDown.errors == "navctl: the daemon is stopping; it ended the watch\n")
        #expect(tooSlow.status == 2)
        #expect(tooSlow.output.split(separator: "\n").count == 1)
        #expect(tooSlow.errors.hasPrefix("Error: io.navhost.Navigation.WatcherTooSlow"))
        #expect(noSession.status == 2)
        #expect(noSession.output.isEmpty)
        #expect(noSession.errors.hasPrefix(#"Error: io.navhost.Navigation.SessionNotFound {"session":"kiosk"}"#))
    }

    @Test("A daemon that goes away mid-watch exits with 69")
    func connectionLost() async throws {
        let server = try DroppingVarlinkServer(replies: [Self.updates[0]])
        defer { server.stop() }
        let run = try await Navctl.run(["watch", "--json", "--socket", server.socketPath])

        #expect(run.status == 69)
        #expect(run.output.split(separator: "\n").count == 1)
        try Snapshots.assertMatches(run, named: "watch-connection-lost", replacing: [server.socketPath: "<socket>"])
    }

    @Test(
        "On a terminal, each redraw fits it: its first line stays on screen, and a last line says how many did not fit",
        arguments: [(rows: 10, columns: 40), (rows: 200, columns: 200)]
    )
    func redrawFitsTheTerminal(rows: Int, columns: Int) async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Navigation.Watch": .stream(Self.updates, end: .finalReply)
        ])
        let frames = try await Self.framesOnATerminal(
            ["watch", "--socket", service.socketPath],
            rows: rows,
            columns: columns
        )
        await service.stop()

        #expect(frames.count == Self.updates.count)
        for frame in frames {
            #expect(frame.first?.hasPrefix("watching session main (Ctrl-C to stop); last change: ") == true, "\(frame)")
            let height = frame.reduce(0) { $0 + max(1, ($1.unicodeScalars.count + columns - 1) / columns) }
            #expect(height <= rows - 1, "\(frame)")
        }
        let clipped = frames.filter { $0.last?.hasSuffix(" more lines; --plain prints them all") == true }
        #expect(clipped.count == (rows == 200 ? 0 : frames.count), "\(frames)")
        #expect(frames.allSatisfy { $0.last == "}" } == (rows == 200), "\(frames)")
    }

    /// The screens `navctl` with `arguments` draws on a terminal of `rows` and `columns` (`script` gives it one,
    /// `stty` its size), each as its lines: what follows each clearing of the screen.
    private static func framesOnATerminal(_ arguments: [String], rows: Int, columns: Int) async throws -> [[String]] {
        let command =
            "stty rows \(rows) cols \(columns) && exec \(Navctl.executable) "
            + arguments.map { "'\($0)'" }.joined(separator: " ") + " 2>/dev/null"
        let typescript = try TestPaths.temporaryDirectory() + "/typescript"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["--quiet", "--return", "--command", command, typescript]
        process.environment = Navctl.environment(adding: [:])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let (exited, exit) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in exit.finish() }
        try process.run()
        try await withTimeout(.seconds(30), "navctl on a terminal to exit") { for await _ in exited {} }
        #expect(process.terminationStatus == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: typescript))
        var text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        // What `script` itself writes after the command's output.
        if let trailer = text.range(of: "\nScript done on ") { text = String(text[..<trailer.lowerBound]) }
        return text.components(separatedBy: "\u{1B}[H\u{1B}[2J").dropFirst().map { frame in
            frame.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    // MARK: - plugins watch

    @Test(
        "plugins watch prints the plugins, then one line per change, and ends with 0 when the daemon ends it",
        arguments: [("plugins-watch-lines", [String]()), ("plugins-watch-json", ["--json"])]
    )
    func pluginsStreamEndedByDaemon(name: String, options: [String]) async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Plugins.Watch": .stream(NavigationSamples.pluginWatchReplies, end: .finalReply)
        ])
        let run = try await Navctl.run(["plugins", "watch"] + options + ["--socket", service.socketPath])
        await service.stop()
        #expect(run.status == 0)
        #expect(run.errors == "navctl: the daemon ended the watch\n")
        if options.contains("--json") {
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(
                try lines.map { try JSONParser().parse($0) }
                    == NavigationSamples.pluginWatchReplies.map(JSONValue.object)
            )
        }
        try Snapshots.assertMatches(run, named: name, replacing: [service.socketPath: "<socket>"])
    }

    @Test("plugins watch ends with 0 on Ctrl-C and when the daemon shuts down, and with 69 when the connection is lost")
    func pluginsWatchEndings() async throws {
        let service = try await ScriptedNavigationService.start([
            "io.navhost.Plugins.Watch": .stream([NavigationSamples.pluginsReply], end: .never)
        ])
        let watch = try RunningNavctl(["plugins", "watch", "--json", "--socket", service.socketPath])
        _ = try await watch.waitForLines(1)
        watch.send(signal: SIGINT)
        let interrupted = try await watch.waitForExit()
        service.answer(
            "io.navhost.Plugins.Watch",
            with: .stream([NavigationSamples.pluginsReply], end: .error("io.navhost.varlink.ServiceShuttingDown"))
        )
        let shutDown = try await Navctl.run(["plugins", "watch", "--socket", service.socketPath])
        await service.stop()
        let server = try DroppingVarlinkServer(replies: [NavigationSamples.pluginsReply])
        defer { server.stop() }
        let lost = try await Navctl.run(["plugins", "watch", "--json", "--socket", server.socketPath])

        #expect(interrupted.status == 0)
        #expect(interrupted.errors.isEmpty)
        #expect(interrupted.output.split(separator: "\n").count == 1)
        #expect(service.calls.map(\.method) == ["io.navhost.Plugins.Watch", "io.navhost.Plugins.Watch"])
        #expect(shutDown.status == 0)
        #expect(shutDown.errors == "navctl: the daemon is stopping; it ended the watch\n")
        #expect(lost.status == 69)
        #expect(lost.output.split(separator: "\n").count == 1)
        #expect(
            lost.errors
                == "Error: connectionClosed: the daemon closed the connection in the middle of io.navhost.Plugins.Watch, after it had begun to reply\n"
        )
    }
}
