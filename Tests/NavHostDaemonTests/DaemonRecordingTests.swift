import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// The flight recorder through the real parts: the daemon with the example plugins and the Dice fixture (random
/// numbers and time from the host services), driven over the socket, recorded and replayed with the real navctl.
@Suite("Flight recorder: navctl record and navctl replay")
struct DaemonRecordingTests {
    @Test(
        "A recorded session of the example plugins replays identically; with a plugin that answers differently, the first differing revision and its diff are reported"
    )
    func recordAndReplay() async throws {
        let plugins = try await TestPlugins.directory(fixtures: ["DicePlugin"])
        let daemon = try await DaemonProcess.start(plugins: plugins)
        let nav = try await NavigationClient.connect(to: daemon)
        try await Self.drive(nav)
        let file = try TestPaths.temporaryDirectory() + "/bug.navrec"

        let record = try await Self.navctl(daemon, ["record", "-o", file])
        #expect(record.status == 0, "\(record.errors)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let header = try JSONParser().parse(String(lines[0]))
        let calls = try lines.dropFirst().map { try JSONParser().parse(String($0)) }
        #expect(header["format"] == "navhost-recording" && header["version"] == 1)
        #expect(header["plugins"]?.arrayValue?.contains(["name": "Dice", "version": "1.0.0"]) == true)
        #expect(calls.count == 16)
        #expect(calls.compactMap { $0["error"]?.stringValue } == ["IntentNotFound"])
        #expect(
            calls.filter { $0["call"]?["intent"] == "onTappedRoll" }.allSatisfy { $0["random"]?.arrayValue?.count == 1 }
        )

        // The same plugins: every call's outcome and stack are the recorded ones.
        let same = try await Self.navctl(daemon, ["replay", file])
        #expect(same.status == 0, "\(same.output)\(same.errors)")
        #expect(same.output.hasPrefix("identical (16 of 16 calls, to revision "), "\(same.output)")
        #expect(try await nav.call("Sessions")["sessions"] == ["main"], "a replay without --to closes its session")

        // Time travel: stop after the call that opened the product's detail, and look at the session.
        let detailCall = try #require(calls.firstIndex { $0["call"]?["intent"] == "onTappedProduct" })
        let revision = try #require(calls[detailCall]["revision"]?.intValue)
        let partial = try await Self.navctl(daemon, ["replay", file, "--to", "\(revision)", "--as", "looking"])
        #expect(partial.status == 0, "\(partial.output)\(partial.errors)")
        #expect(partial.output.contains("session looking is kept"), "\(partial.output)")
        #expect(try await nav.routes(session: "looking") == ["home.main", "products.list", "products.detail"])

        // Without the recorded random numbers the dice roll otherwise (six rolls: 1 in 46,656 to roll the same).
        let unseeded = file + ".unseeded"
        try lines.map { line in
            line.replacing(/,"random":\["[0-9a-f",]*"\]/, with: "")
        }.joined(separator: "\n").write(toFile: unseeded, atomically: true, encoding: .utf8)
        let rerolled = try await Self.navctl(daemon, ["replay", unseeded])
        #expect(rerolled.status == 4, "\(rerolled.output)\(rerolled.errors)")
        #expect(rerolled.output.contains("(Navigate)") || rerolled.output.contains("(Send)"), "\(rerolled.output)")
        // Its session, replay-1 again, is a new one whose revisions go on past those of the replay-1 before it, as any
        // session opened again under a name: from the fourth block of 1,024 above the one the earlier ended in (the
        // emptied record is written past its reservation and reserves two blocks more), revision 4,097 on here.
        let replayed = try #require(rerolled.output.firstMatch(of: /replayed revision (\d+)/)?.output.1)
        #expect(try #require(Int(replayed)) >= 4_097, "\(rerolled.output)")
        try await daemon.terminate()

        // A Products whose catalog names p1 otherwise: the list it loaded after the first call is the first result that
        // differs.
        let changed = try await TestPlugins.directory(fixtures: ["DicePlugin"])
        try TestPlugins.copyExample("Products", in: changed)
        let catalog = "\(changed)/Products/products.json"
        try String(contentsOfFile: catalog, encoding: .utf8)
            .replacingOccurrences(of: "Difference Engine Kit", with: "Difference Engine Mk II")
            .write(toFile: catalog, atomically: true, encoding: .utf8)
        let other = try await DaemonProcess.start(plugins: changed)
        let differs = try await Self.navctl(other, ["replay", file])
        let listed = try #require(calls[0]["revision"]?.intValue)
        #expect(differs.status == 4, "\(differs.output)\(differs.errors)")
        #expect(differs.output.hasPrefix("differs at revision \(listed): call 1 (Navigate)"), "\(differs.output)")
        #expect(differs.output.contains(#""name": "Difference Engine Mk II""#), "\(differs.output)")
        try await other.terminate()
    }

    @Test(
        "Kept on disk, a recording outlives kill -9 but for the call the crash cut short; the file from the session's start replays identically, one that starts midway says its first stack differs; a restart starts a new file"
    )
    func recordingOnDiskOutlivesCrash() async throws {
        let plugins = try await TestPlugins.directory(fixtures: ["DicePlugin"])
        let daemon = try await DaemonProcess.start(
            plugins: plugins,
            extraArguments: ["--flight-recorder-on-disk", "--flight-recorder-calls", "4"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "dice.main"])
        #expect(try await pollUntil { try await nav.topState()["rolls"]?.arrayValue?.count == 1 })
        for _ in 0..<6 { try await nav.call("Send", ["intent": "onTappedRoll"]) }
        try await daemon.crash()

        // 7 calls, 4 to a file: the first 4 in the older file, 2 in the newer; the last roll was never settled.
        let folder = "\(daemon.stateDirectory)/recordings"
        let older = try String(contentsOfFile: "\(folder)/main.navrec.1", encoding: .utf8)
        let newer = try String(contentsOfFile: "\(folder)/main.navrec", encoding: .utf8)
        #expect(older.split(separator: "\n").count == 5 && newer.split(separator: "\n").count == 3)
        let newerHeader = try JSONParser().parse(String(newer.split(separator: "\n")[0]))
        #expect(newerHeader["base"]?["stack"]?.arrayValue?.last?["state"]?["rolls"]?.arrayValue?.count == 4)
        #expect(newerHeader["plugins"]?.arrayValue?.contains(["name": "Dice", "version": "1.0.0"]) == true)
        let saved = try TestPaths.temporaryDirectory()
        try older.write(toFile: "\(saved)/older.navrec", atomically: true, encoding: .utf8)
        try newer.write(toFile: "\(saved)/newer.navrec", atomically: true, encoding: .utf8)

        try await daemon.restart()
        let fromStart = try await Self.navctl(daemon, ["replay", "\(saved)/older.navrec"])
        #expect(fromStart.status == 0, "\(fromStart.output)\(fromStart.errors)")
        #expect(fromStart.output.hasPrefix("identical (4 of 4 calls"), "\(fromStart.output)")
        // The newer file starts mid-session: its base holds four rolls that only earlier calls made, which a replay
        // that pushes dice.main again cannot have. It says so at the first stack rather than blame a later call.
        let midway = try await Self.navctl(daemon, ["replay", "\(saved)/newer.navrec"])
        let baseRevision = try #require(newerHeader["base"]?["revision"]?.intValue)
        #expect(midway.status == 4, "\(midway.output)\(midway.errors)")
        #expect(midway.output.hasPrefix("differs at revision \(baseRevision): the first stack"), "\(midway.output)")
        // The restarted session starts a file of its own; the one before the crash is the older one now.
        let restarted = try await NavigationClient.connect(to: daemon)
        try await restarted.call("Pop")
        try await restarted.call("Navigate", ["route": "settings.main"])
        let afterRestart = try String(contentsOfFile: "\(folder)/main.navrec", encoding: .utf8)
        #expect(afterRestart.split(separator: "\n").count == 2, "a header and the settled Pop")
        #expect(try String(contentsOfFile: "\(folder)/main.navrec.1", encoding: .utf8) == newer)
        try await daemon.terminate()
    }

    @Test("Kept on disk, the recordings of sessions x and x.1 stay apart, the older file of x included")
    func recordingFilesOfSessionsWithDots() async throws {
        let daemon = try await DaemonProcess.start(
            extraArguments: ["--flight-recorder-on-disk", "--flight-recorder-calls", "2"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        for name in ["x", "x.1"] { try await nav.call("OpenSession", ["name": .string(name), "root": "home.main"]) }
        for _ in 0..<3 { try await nav.call("Navigate", ["session": "x.1", "route": "settings.main"]) }
        for _ in 0..<4 { try await nav.call("Navigate", ["session": "x", "route": "products.list"]) }
        for _ in 0..<2 { try await nav.call("Navigate", ["session": "x.1", "route": "settings.main"]) }
        // Settles the latest call of each session to its file.
        for name in ["x", "x.1"] { try await nav.call("CloseSession", ["name": .string(name)]) }
        try await daemon.terminate()

        // Before, x's older file was x.1.navrec, the current file of x.1: x's calls went into it, and x.1's were lost.
        let folder = "\(daemon.stateDirectory)/recordings"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files == ["x.1.navrec", "x.1.navrec.1", "x.navrec", "x.navrec.1"], "\(files)")
        for file in files {
            let lines = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8).split(separator: "\n")
            let session = file.hasPrefix("x.1.") ? "x.1" : "x"
            let route = session == "x" ? "products.list" : "settings.main"
            #expect(try JSONParser().parse(String(lines[0]))["session"] == .string(session), "\(file)")
            let routes = try lines.dropFirst().map { try JSONParser().parse(String($0))["call"]?["route"] }
            #expect(!routes.isEmpty && routes.allSatisfy { $0 == .string(route) }, "\(file): \(routes)")
        }
    }

    @Test(
        "A call made while the one before it still works (a client that does not wait) records that screen busy, and the replay, which lets it finish, is identical"
    )
    func callsThatDoNotWait() async throws {
        let plugins = try await TestPlugins.directory(fixtures: ["DicePlugin"])
        let daemon = try await DaemonProcess.start(plugins: plugins)
        let nav = try await NavigationClient.connect(to: daemon)
        // The dice screen's onAppear rolls after 500 ms; the Send comes at once, while it waits.
        try await nav.call("Navigate", ["route": "dice.main"])
        try await nav.call("Send", ["intent": "onTappedRoll"])
        let file = try TestPaths.temporaryDirectory() + "/burst.navrec"
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let record = try await Self.navctl(daemon, ["record", "-o", file])
        #expect(record.status == 0, "\(record.errors)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let navigate = try JSONParser().parse(String(lines[1]))
        let dice = navigate["stack"]?[1]
        #expect(dice?["busy"] == true && dice?["state"]?["rolls"] == [], "\(lines)")

        // Before, the replay let the first roll happen before it compared, found one roll where none was recorded,
        // and said "differs" at the Navigate.
        let replay = try await Self.navctl(daemon, ["replay", file])
        #expect(replay.status == 0, "\(replay.output)\(replay.errors)")
        #expect(replay.output.hasPrefix("identical (2 of 2 calls"), "\(replay.output)")
        try await daemon.terminate()
    }

    @Test(
        "A recording over 1 MiB, a deep stack over many calls, is recorded whole; a replay names the daemon's message limit when over it, and replays under a larger one"
    )
    func recordingOverOneMebibyte() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        for _ in 0..<5 { try await nav.call("Navigate", ["route": "products.list"]) }
        for _ in 0..<130 {
            try await nav.call("Navigate", ["route": "products.list"])
            try await nav.call("Pop")
        }
        let file = try TestPaths.temporaryDirectory() + "/deep.navrec"
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }

        // Before, navctl refused the reply as a protocol violation (exit 76) and wrote nothing.
        let record = try await Self.navctl(daemon, ["record", "-o", file])
        #expect(record.status == 0, "\(record.errors)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(size > 1 << 20, "the recording is \(size) bytes: the test needs it over the default limit")

        let overLimit = try await Self.navctl(daemon, ["replay", file])
        #expect(overLimit.status != 0 && overLimit.errors.contains("max-message-size"), "\(overLimit.errors)")
        #expect(try await nav.call("Sessions")["sessions"] == ["main"], "the daemon went on, and opened nothing")
        try await daemon.terminate()

        let larger = try await DaemonProcess.start(extraArguments: ["--max-message-size", "8M"])
        let replay = try await Self.navctl(larger, ["replay", file])
        #expect(replay.status == 0, "\(replay.output)\(replay.errors)")
        #expect(replay.output.hasPrefix("identical (256 of 256 calls"), "\(replay.output)")
        try await larger.terminate()
    }

    @Test("Recording and Replay refuse what they cannot do with typed errors, and change nothing")
    func refusals() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])
        let recording = try #require(try await nav.call("Recording")["recording"])

        try await nav.call("OpenSession", ["name": "passenger", "root": "products.list"])
        var unknownCall = try #require(recording.objectValue)
        unknownCall["calls"] = [["call": ["method": "Reboot"], "revision": 9, "stack": []]]

        let cases: [(parameters: JSONObject, error: String)] = [
            (["recording": ["header": ["format": "something-else"], "calls": []]], "InvalidRecording"),
            (["recording": .object(unknownCall)], "InvalidRecording"),
            (["recording": recording, "session": "passenger"], "SessionExists"),
            (["recording": recording, "session": "main"], "SessionConfigured"),
            (["recording": recording, "session": "a/b"], "InvalidSessionName"),
        ]
        for refusal in cases {
            let error = await #expect(throws: VarlinkError.self, "\(refusal)") {
                try await nav.call("Replay", refusal.parameters)
            }
            #expect(error?.name == "io.navhost.Navigation.\(refusal.error)", "\(refusal)")
        }
        let notAnObject = await #expect(throws: VarlinkError.self) {
            try await nav.call("Replay", ["recording": "not an object"])
        }
        #expect(notAnObject?.name == "org.varlink.service.InvalidParameter")
        let missing = await #expect(throws: VarlinkError.self) { try await nav.call("Recording", ["session": "nope"]) }
        #expect(missing?.name == "io.navhost.Navigation.SessionNotFound")
        #expect(try await nav.call("Sessions")["sessions"] == ["main", "passenger"])
        #expect(try await nav.routes() == ["home.main", "settings.main"])
        try await daemon.terminate()
    }

    // MARK: Helpers

    /// Sixteen calls over three features: navigations, intents (one refused), a navigation a ViewModel makes, and six
    /// dice rolls; each waits, as a person would, until the screen it opened has loaded.
    private static func drive(_ nav: NavigationClient) async throws {
        try await nav.call("Navigate", ["route": "products.list"])
        #expect(try await pollUntil { try await nav.topState()["status"] == "loaded" })
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        await #expect(throws: VarlinkError.self) { try await nav.call("Send", ["intent": "onTappedNothing"]) }
        try await nav.call("Send", ["intent": "onTappedProduct", "arguments": ["productID": "p3"]])
        #expect(try await pollUntil { try await nav.topState()["status"] == "loaded" })
        try await nav.call("Pop")
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": ""]])
        try await nav.call("Navigate", ["route": "dice.main"])
        #expect(try await pollUntil { try await nav.topState()["rolls"]?.arrayValue?.count == 1 })
        for _ in 0..<6 { try await nav.call("Send", ["intent": "onTappedRoll"]) }
        try await nav.call("Present", ["route": "settings.main"])
        // As a person would: the next call after the screen loaded. A call made while a screen still loads records the
        // stack it finds, loading, where a replay (which waits for the session to settle) finds it loaded.
        #expect(try await pollUntil { try await nav.topState()["status"] == "loaded" })
        try await nav.call("Dismiss")
        try await nav.call("PopToRoot")
    }

    private static func navctl(_ daemon: DaemonProcess, _ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(TestPaths.builtExecutable("navctl"), ["--socket", daemon.socketPath] + arguments)
    }
}
