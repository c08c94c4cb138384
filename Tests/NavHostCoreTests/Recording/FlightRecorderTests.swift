import Logging
import NavHostJSON
import NavHostKit
import NavHostWire
import Testing

@testable import NavHostCore

@MainActor
@Suite("Flight recorder: a bounded ring of calls over a base stack")
struct FlightRecorderTests {
    private static func stack(_ routes: String...) -> [RecordedScreen] {
        routes.map {
            RecordedScreen(
                ScreenSnapshot(id: ScreenID("s1"), route: RouteRequest(id: $0), presentation: .push, state: [:])
            )
        }
    }

    private static func call(_ route: String, revision: UInt64) -> RecordedCall {
        RecordedCall(
            call: .navigate(RouteRequest(id: route)),
            error: nil,
            revision: revision,
            stack: stack("home.main", route)
        )
    }

    @Test("Past its capacity it drops the oldest call, whose stack becomes the base it replays from")
    func boundedRing() {
        var recorder = FlightRecorder(capacity: 3, base: SessionRecording.Base(revision: 0, stack: Self.stack("a")))
        for number in 1...5 { recorder.append(Self.call("r\(number)", revision: UInt64(number))) }
        #expect(recorder.heldCalls.map(\.revision) == [3, 4, 5])
        #expect(recorder.dropped == 2)
        #expect(recorder.base.revision == 2)
        #expect(recorder.base.stack == Self.stack("home.main", "r2"))
    }

    @Test(
        "What the latest call left is replaced by what the next call finds, random numbers added; before any call, the base's"
    )
    func settleLatest() {
        var recorder = FlightRecorder(capacity: 2, base: SessionRecording.Base(revision: 0, stack: Self.stack("a")))
        recorder.settleLatest(revision: 1, stack: Self.stack("a"), drawn: [1])
        #expect(recorder.base.revision == 1 && recorder.base.random == ["0000000000000001"])
        for number in 1...3 { recorder.append(Self.call("r\(number)", revision: UInt64(number))) }
        recorder.settleLatest(revision: 9, stack: Self.stack("loaded"), drawn: [0xff, 0x10])
        #expect(recorder.heldCalls.last?.revision == 9)
        #expect(recorder.heldCalls.last?.stack == Self.stack("loaded"))
        #expect(recorder.heldCalls.last?.random == ["00000000000000ff", "0000000000000010"])
        #expect(recorder.heldCalls.first?.random == [])
    }

    @Test("With capacity 0 it records nothing")
    func disabled() {
        var recorder = FlightRecorder(capacity: 0, base: SessionRecording.Base(revision: 0, stack: Self.stack("a")))
        recorder.append(Self.call("r1", revision: 1))
        recorder.settleLatest(revision: 2, stack: Self.stack("b"), drawn: [3])
        #expect(recorder.heldCalls.isEmpty && recorder.base.revision == 0 && recorder.dropped == 0)
    }

    @Test("A session records each call with its outcome, refused ones too, and hands them out as a recording")
    @MainActor
    func sessionRecordsCalls() async throws {
        let driver = try SessionDriver(catalog: .holding([HomeFeature(), CatalogFeature()]), root: "home.main")
        try await driver.session.handle(.navigate(RouteRequest(id: "catalog.list")))
        try await driver.settle()
        await #expect(throws: NavigationError.self) {
            try await driver.session.handle(.send(IntentMessage(name: "noSuchIntent"), position: nil))
        }
        try await driver.session.handle(.pop)
        let recording = driver.session.recording(plugins: [SessionRecording.Plugin(name: "Home", version: "1.0.0")])
        #expect(recording.header.session == "main")
        #expect(recording.header.base.stack.map(\.route) == ["home.main"])
        #expect(recording.calls.map(\.call.method) == ["Navigate", "Send", "Pop"])
        #expect(recording.calls.map(\.error) == [nil, "IntentNotFound", nil])
        #expect(recording.calls[1].stack.map(\.route) == ["home.main", "catalog.list"])
        #expect(recording.calls[2].stack.map(\.route) == ["home.main"])
        #expect(recording.calls[2].revision == driver.revision)
        driver.close()
    }

    @Test("Who opened a screen is recorded by place; a replay whose base holds the screen gives it back to its opener")
    @MainActor
    func replayKeepsOpeners() async throws {
        let registry = SessionRegistry(
            catalog: try .holding([RelayFeature()]),
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        let session = try registry.open(SessionConfiguration(root: RouteRequest(id: "relay.step")))
        try await session.handle(.navigate(RouteRequest(id: "relay.step")))
        try await session.handle(.send(IntentMessage(name: "onTappedStep"), position: 1))
        // From below the top: the step at 1 closes the one it opened.
        try await session.handle(.send(IntentMessage(name: "onTappedPop"), position: 1))
        let recording = session.recording(plugins: [])
        #expect(recording.calls.map(\.error) == [nil, nil, nil])
        #expect(recording.calls[1].stack.map(\.openedBy) == [nil, nil, 1])

        // The recording as a full ring would leave it: its base is the stack the opening left.
        let trimmed = SessionRecording(
            header: SessionRecording.Header(
                session: "main",
                root: RouteRequest(id: "relay.step"),
                plugins: [],
                base: SessionRecording.Base(after: recording.calls[1]),
                dropped: 2
            ),
            calls: [recording.calls[2]]
        )
        let report = try await registry.replay(trimmed, as: "replay-1")
        #expect(report.difference == nil, "\(String(describing: report.difference))")
        #expect(report.calls == 1)

        // Kept at its base: the record written for it (what a restart restores) holds the opener too.
        let kept = try await registry.replay(trimmed, as: "replay-2", to: trimmed.header.base.revision)
        #expect(kept.leftOpen)
        let stack = try registry.session("replay-2").record.stack
        #expect(stack.map(\.openedBy) == [nil, nil, stack[1].id])
        registry.close("replay-2")
        registry.close("main")
    }

    @Test(
        "A replay compares a screen the recorded session let load once it has loaded, though the load is quiet for longer than 50 ms"
    )
    @MainActor
    func replayWaitsForSlowLoads() async throws {
        let registry = SessionRegistry(
            catalog: try .holding([SlowLoadFeature()]),
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        let session = try registry.open(SessionConfiguration(root: RouteRequest(id: "slow.load")))
        // Each call comes once the screen has loaded, as a person's would: nothing is recorded busy.
        try await Self.waitUntilIdle(session)
        try await session.handle(.navigate(RouteRequest(id: "slow.load")))
        try await Self.waitUntilIdle(session)
        let recording = session.recording(plugins: [])
        #expect(recording.header.base.stack.map(\.state) == [["value": "loaded"]])
        #expect(recording.calls.map { $0.stack.map(\.state) } == [[["value": "loaded"], ["value": "loaded"]]])

        // Before, the replay compared after 50 ms without a new revision, both at the base and after the Navigate,
        // while the screen still said "loading", and reported a difference the session recorded never had.
        let report = try await registry.replay(recording, as: "replay-1")
        #expect(report.difference == nil, "\(String(describing: report.difference))")
        #expect(report.calls == 1)
        registry.close("main")
    }

    @Test(
        "A screen whose work ended in the session recorded but not in the replay costs one 5 s wait, not one per call, and the report says so"
    )
    func replayGivesUpWaitingForWorkThatDoesNotEnd() async throws {
        let registry = SessionRegistry(
            catalog: try .holding([SlowLoadFeature()]),
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        SlowLoadViewModel.lingers = false
        defer { SlowLoadViewModel.lingers = false }
        let session = try registry.open(SessionConfiguration(root: RouteRequest(id: "slow.load")))
        try await Self.waitUntilIdle(session)
        for _ in 0..<3 {
            try await session.handle(.navigate(RouteRequest(id: "slow.linger")))
            try await Self.waitUntilIdle(session)
            try await session.handle(.pop)
            try await Self.waitUntilIdle(session)
        }
        let recording = session.recording(plugins: [])

        // In the replay each slow.linger screen's work goes on until its Pop: the first Navigate's settle waits the
        // 5 s for it, the two others 50 ms without a change (15 s and no warning before).
        SlowLoadViewModel.lingers = true
        let report = try await registry.replay(recording, as: "replay-1")
        #expect(report.difference == nil, "\(String(describing: report.difference))")
        #expect(report.calls == 6)
        #expect(
            report.warnings == [
                "a screen's work, ended in the session recorded, was still under way 5 s after call 1: from then on "
                    + "the replay waited for screens' work only until 50 ms passed without a change"
            ]
        )
        registry.close("main")
    }

    @Test(
        "A screen recorded busy is compared once 50 ms pass without a change: its work is not waited for as a screen's recorded idle"
    )
    func replayDoesNotWaitForScreensRecordedBusy() async throws {
        let registry = SessionRegistry(
            catalog: try .holding([SlowLoadFeature()]),
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        let session = try registry.open(SessionConfiguration(root: RouteRequest(id: "slow.load")))
        try await Self.waitUntilIdle(session)
        // Each Pop comes while the slow.forever screen works, as every call would: it is recorded busy.
        for _ in 0..<3 {
            try await session.handle(.navigate(RouteRequest(id: "slow.forever")))
            try await session.handle(.pop)
            try await Self.waitUntilIdle(session)
        }
        let recording = session.recording(plugins: [])
        #expect(
            recording.calls.map { $0.stack.map(\.busy) }
                == Array(repeating: [[false, true], [false]], count: 3).flatMap { $0 }
        )

        // Waited for as a screen recorded idle, the first slow.forever screen would cost the 5 s and a warning (and
        // 5 s a call before the replay gave up waiting for work that does not end).
        let started = ContinuousClock.now
        let report = try await registry.replay(recording, as: "replay-1")
        let took = started.duration(to: .now)
        #expect(report.difference == nil, "\(String(describing: report.difference))")
        #expect(report.calls == 6)
        #expect(report.warnings == [], "a screen recorded busy was waited for until its work ended")
        #expect(took < .seconds(5), "three screens recorded busy took \(took)")
        registry.close("main")
    }

    @Test(
        "A replay waits for the screen a screen recorded busy opens after a quiet stretch, as the recorded session's next call found it"
    )
    func replayWaitsForScreensABusyScreenOpens() async throws {
        let registry = SessionRegistry(
            catalog: try .holding([SlowLoadFeature()]),
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        let session = try registry.open(SessionConfiguration(root: RouteRequest(id: "slow.load")))
        try await Self.waitUntilIdle(session)
        try await session.handle(.navigate(RouteRequest(id: "slow.follow")))
        // The next call comes once the screen slow.follow opened has loaded, as a person's would.
        let deadline = ContinuousClock.now + .seconds(30)
        while session.stackAsRecorded.map(\.busy) != [false, true, false] {
            try await Task.sleep(for: .milliseconds(5))
            if ContinuousClock.now > deadline { throw SessionDidNotSettle(revision: session.revision) }
        }
        try await session.handle(.pop)
        let recording = session.recording(plugins: [])
        #expect(
            recording.calls.map { $0.stack.map(\.route) } == [
                ["slow.load", "slow.follow", "slow.load"], ["slow.load", "slow.follow"],
            ]
        )

        // Before, the Navigate's settle ended 50 ms after slow.follow appeared, every screen recorded idle being idle,
        // and compared the stack without the screen slow.follow opens 200 ms later.
        let report = try await registry.replay(recording, as: "replay-1")
        #expect(report.difference == nil, "\(String(describing: report.difference))")
        #expect(report.calls == 2)
        #expect(report.warnings == [])

        // A stack that never holds the recorded screens is compared once the 5 s ran out, as it is: the difference,
        // not a warning about work.
        var edited = recording
        edited.calls[0].stack[2].route = "slow.linger"
        let differing = try await registry.replay(edited, as: "replay-1")
        #expect(differing.difference?.call == 1, "\(String(describing: differing.difference))")
        #expect(differing.difference?.patch == ["2": ["route": "slow.load"]])
        #expect(differing.warnings == [])
        registry.close("main")
    }

    /// Waits until no screen of `session` has work under way and every change of its state has been reported.
    @MainActor
    private static func waitUntilIdle(_ session: NavigationSession) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !session.isIdle {
            try await Task.sleep(for: .milliseconds(5))
            if ContinuousClock.now > deadline { throw SessionDidNotSettle(revision: session.revision) }
        }
    }
}
