import IntegrationHarness
import NavHostJSON
import Testing

/// How a replay lets the session settle after each call, through the real daemon and the Pace fixture plugin, whose
/// screens work on real time: a ticker that never lets 50 ms pass without a change, loads, a follower that opens a
/// screen late, and writes 10 ms apart. Recorded and replayed over the socket (`Recording`, `Replay`).
@Suite("Replay: settling after each call, a screen that changes all the time included")
struct DaemonReplaySettleTests {
    /// The warning the replay gives when the screen `place` (`pace.tick`) let no 50 ms pass without a change in the
    /// 5 s after a call, less the call: it should be the settle of call 1, but a loaded machine may hold the ticks
    /// back past 50 ms once and let a settle end early.
    private static func tickerWarning(at place: Int) -> (prefix: String, suffix: String) {
        (
            "the session never went 50 ms without a change in the 5 s after call ",
            ", screen \(place) (pace.tick) changing all the time: from then on the 50 ms without a change the replay "
                + "waited for left out the changes screens of pace.tick made to their own state"
        )
    }

    /// A daemon with the example plugins and the Pace fixture, and a client of its `main` session.
    private static func startWithPace() async throws -> (DaemonProcess, NavigationClient) {
        let daemon = try await DaemonProcess.start(plugins: try await TestPlugins.directory(fixtures: ["PacePlugin"]))
        return (daemon, try await NavigationClient.connect(to: daemon))
    }

    /// The recording of `nav`'s session so far (`Recording`), and its calls.
    private static func recording(
        of nav: NavigationClient,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (recording: JSONValue, calls: [JSONValue]) {
        let recording = try #require(try await nav.call("Recording")["recording"], sourceLocation: sourceLocation)
        return (recording, try #require(recording["calls"]?.arrayValue, sourceLocation: sourceLocation))
    }

    /// Replays `recording` and expects it identical over `calls` calls, with one warning: the ticker's, the screen
    /// at `place`.
    private static func expectIdenticalWithOneTickerWarning(
        _ nav: NavigationClient,
        _ recording: JSONValue,
        calls: Int64,
        tickerAt place: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let report = try await nav.call("Replay", ["recording": recording])
        #expect(report["identical"] == true, "\(report)", sourceLocation: sourceLocation)
        #expect(report["calls"] == .int(calls), sourceLocation: sourceLocation)
        let warnings = report["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let expected = tickerWarning(at: place)
        #expect(warnings.count == 1, "\(warnings)", sourceLocation: sourceLocation)
        #expect(
            warnings.allSatisfy { $0.hasPrefix(expected.prefix) && $0.hasSuffix(expected.suffix) },
            "\(warnings)",
            sourceLocation: sourceLocation
        )
    }

    @Test(
        "Given up on for a ticking screen, 50 ms without a change is waited for again once it closed: a screen recorded busy whose writes land 10 to 30 ms in, then a screen that counts them, replay identically"
    )
    func quietComesBackOnceTheTickerCloses() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        // The ticker is open for three calls: a loaded machine may hold its ticks back past 50 ms once.
        try await nav.call("Navigate", ["route": "pace.tick"])
        try await nav.call("Navigate", ["route": "pace.load"])
        #expect(try await pollUntil { try await nav.topState()["value"] == "loaded" })
        try await nav.call("Pop")
        try await nav.call("Pop")
        // The next call comes once the three items are written, while pace.sync still follows: it is recorded busy.
        try await nav.call("Navigate", ["route": "pace.sync"])
        #expect(try await pollUntil { try await nav.topState()["value"] == "written 3" })
        try await nav.call("Navigate", ["route": "pace.count"])
        #expect(try await pollUntil { try await nav.topState()["value"] == "3 items" })
        let (recording, calls) = try await Self.recording(of: nav)
        #expect(
            calls.map { $0["stack"]?.arrayValue?.map { $0["busy"] == true } } == [
                [false, true], [false, true, false], [false, true], [false], [false, true], [false, true, false],
            ]
        )

        // Before, once the ticker's settle had given up waiting for 50 ms without a change, no later settle waited for
        // them: the Navigate to pace.sync was compared 2 ms in, and pace.count found 0 or 1 items of 3.
        try await Self.expectIdenticalWithOneTickerWarning(nav, recording, calls: 6, tickerAt: 1)
        try await daemon.terminate()
    }

    @Test(
        "While a ticking screen given up on stays open, the writes of a screen above it still count: pace.sync's, 10 to 30 ms in, then a screen that counts them, replay identically"
    )
    func otherScreensChangesCountWhileTheTickerIsOpen() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        try await nav.call("Navigate", ["route": "pace.tick"])
        try await nav.call("Navigate", ["route": "pace.sync"])
        #expect(try await pollUntil { try await nav.topState()["value"] == "written 3" })
        try await nav.call("Navigate", ["route": "pace.count"])
        #expect(try await pollUntil { try await nav.topState()["value"] == "3 items" })
        let (recording, calls) = try await Self.recording(of: nav)
        #expect(calls[2]["stack"]?[3]?["state"] == ["value": "3 items"], "\(calls[2])")

        // A settle that stopped waiting for 50 ms without a change as soon as the work and the stack were there, while
        // the ticker was open, compared pace.sync 2 ms in: pace.count found 0 or 1 items.
        try await Self.expectIdenticalWithOneTickerWarning(nav, recording, calls: 3, tickerAt: 1)
        try await daemon.terminate()
    }

    @Test(
        "A second screen of a ticking route given up on, one that writes items 30 ms apart and goes still, is waited for: a screen that counts them replays identically"
    )
    func aStillScreenOfTheTickingRouteCounts() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        try await nav.call("Navigate", ["route": "pace.tick"])
        try await nav.call("Navigate", ["route": "pace.tick", "parameters": ["steps": 3]])
        #expect(try await pollUntil { try await nav.topState()["value"] == "written 3" })
        try await nav.call("Navigate", ["route": "pace.count"])
        #expect(try await pollUntil { try await nav.topState()["value"] == "3 items" })
        let (recording, calls) = try await Self.recording(of: nav)
        #expect(calls[1]["stack"]?.arrayValue?.map { $0["busy"] == true } == [false, true, true], "\(calls[1])")
        #expect(calls[2]["stack"]?[3]?["state"] == ["value": "3 items"], "\(calls[2])")

        // Before, every screen of pace.tick was left out once the ticker was given up on: the second one's writes,
        // 30 to 90 ms in, did not count, the settle ended 50 ms after the push, and pace.count found 1 item of 3.
        try await Self.expectIdenticalWithOneTickerWarning(nav, recording, calls: 3, tickerAt: 1)
        try await daemon.terminate()
    }

    @Test(
        "A screen recorded busy that holds the daemon 60 ms at a time between awaits lets the settle end: a long gap between two polls does not start the 50 ms again"
    )
    func aDaemonHeldUpOftenStillSettles() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        // The recording is taken at once, long before pace.stall opens its pace.load, 3 s in.
        try await nav.call("Navigate", ["route": "pace.stall"])
        let (recording, calls) = try await Self.recording(of: nav)
        #expect(calls[0]["stack"]?.arrayValue?.map { $0["route"] } == ["home.main", "pace.stall"], "\(calls[0])")
        // So that only the replay's pace.stall holds the daemon.
        try await nav.call("Pop")

        // Before, each poll after 60 ms held started the 50 ms again: the settle never saw them, pace.load opened 3 s
        // in and loaded, and the stack compared had it. Now the settle ends after 10 polls or so, about 0.6 s in.
        let report = try await nav.call("Replay", ["recording": recording])
        #expect(report["identical"] == true, "\(report)")
        #expect(report["calls"] == 1)
        #expect(report["warnings"] == [], "\(report)")
        try await daemon.terminate()
    }

    @Test(
        "Only the screen that kept the 50 ms away on its own is given up on: not one below it that changes every 70 ms"
    )
    func aSlowerScreenIsNotGivenUpOn() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        try await nav.call("Navigate", ["route": "pace.pulse"])
        try await nav.call("Navigate", ["route": "pace.tick"])
        let (recording, _) = try await Self.recording(of: nav)

        // Before, every screen that changed in the last 50 to 100 ms of the 5 s was named, pace.pulse most times, and
        // its route left out for the rest of the replay.
        try await Self.expectIdenticalWithOneTickerWarning(nav, recording, calls: 2, tickerAt: 2)
        try await daemon.terminate()
    }

    @Test(
        "Once a ticking screen is given up on, what opens above it is still waited for: a load recorded loaded, and the screen a follower opens late"
    )
    func screensAboveTheTickerAreWaitedFor() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        try await nav.call("Navigate", ["route": "pace.tick"])
        // A person's calls: each once the screen it opened has loaded.
        try await nav.call("Navigate", ["route": "pace.load"])
        #expect(try await pollUntil { try await nav.topState()["value"] == "loaded" })
        try await nav.call("Pop")
        try await nav.call("Navigate", ["route": "pace.follow"])
        #expect(
            try await pollUntil {
                let (routes, top) = (try await nav.routes(), try await nav.topState())
                return routes.last == "pace.load" && top["value"] == "loaded"
            }
        )
        try await nav.call("Pop")
        try await nav.call("Pop")
        try await nav.call("Pop")
        let (recording, calls) = try await Self.recording(of: nav)
        #expect(calls[1]["stack"]?[2]?["state"] == ["value": "loaded"], "\(calls[1])")
        #expect(
            calls[3]["stack"]?.arrayValue?.map { $0["route"] }
                == ["home.main", "pace.tick", "pace.follow", "pace.load"],
            "\(calls[3])"
        )

        // pace.load says "loading" for 200 ms without a change, and pace.follow opens its pace.load 200 ms in: compared
        // as soon as the ticker's changes stopped counting, either would differ.
        try await Self.expectIdenticalWithOneTickerWarning(nav, recording, calls: 7, tickerAt: 1)
        try await daemon.terminate()
    }

    @Test(
        "A ticking screen that a screen recorded busy opens 200 ms in, after 50 ms without a change, is given up on all the same"
    )
    func aTickerOpenedLateIsGivenUpOn() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        // Three downloads, each closed once its progress ticks.
        for _ in 0..<3 {
            try await nav.call("Navigate", ["route": "pace.download"])
            #expect(try await pollUntil { try await nav.routes().last == "pace.tick" })
            try await nav.call("Pop")
            try await nav.call("Pop")
        }
        let (recording, calls) = try await Self.recording(of: nav)
        #expect(calls[0]["stack"]?.arrayValue?.map { $0["route"] } == ["home.main", "pace.download", "pace.tick"])

        // The first settle to give up on 50 ms without a change did not count the 200 ms before the ticker opened as
        // those 50 ms (in session 51's first version it did: each Navigate's settle had "seen" them, was not taken
        // for one that lacked them, and cost 5 s with no warning; before that version, so did every such settle).
        try await Self.expectIdenticalWithOneTickerWarning(nav, recording, calls: 9, tickerAt: 2)
        try await daemon.terminate()
    }

    @Test(
        "A ticking screen costs a replay one 5 s wait and one warning, not one per call, though it closes and opens again"
    )
    func aTickerIsGivenUpOnOnce() async throws {
        let (daemon, nav) = try await Self.startWithPace()
        try await nav.call("Navigate", ["route": "pace.tick"])
        for _ in 0..<4 {
            try await nav.call("Navigate", ["route": "pace.load"])
            #expect(try await pollUntil { try await nav.topState()["value"] == "loaded" })
            try await nav.call("Pop")
        }
        try await nav.call("Pop")
        try await nav.call("Navigate", ["route": "pace.tick"])
        try await nav.call("Pop")
        let (recording, _) = try await Self.recording(of: nav)

        // Before, each of the ten calls with a ticker open waited the whole 5 s, and nothing said why.
        try await Self.expectIdenticalWithOneTickerWarning(nav, recording, calls: 12, tickerAt: 1)
        try await daemon.terminate()
    }
}
