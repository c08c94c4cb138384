import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// Reads a session's Watch replies until one carries an event that `matches`, and returns that event.
func nextEvent(
    in updates: inout VarlinkReplySequence.AsyncIterator,
    where matches: (JSONValue) -> Bool
) async throws -> JSONValue {
    while let reply = try await updates.next() {
        if let event = reply["event"], matches(event) { return event }
    }
    throw TimedOut(what: "a Watch event that matches: the stream ended")
}

@Suite(
    "Bad input: a use case that never returns",
    .sharedDaemon(
        sessions: ["never-returns", "late-write"],
        arguments: ["--intent-timeout", "1s"],
        fixtures: ["StallPlugin"]
    )
)
struct BadInputIntentTests {
    @Test(
        "The client gets IntentTimedOut, the screen shows an error until its next intent succeeds, and nothing wedges"
    )
    func useCaseThatNeverReturns() async throws {
        let daemon = try SharedDaemon.daemon
        let witness = try await Witness.connect(to: daemon, session: "never-returns")
        let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let session: JSONObject = ["session": "never-returns"]
        let pushed = try await client.call(
            "io.navhost.Navigation.Navigate",
            parameters: session.merging(["route": "stall.main"]) { $1 }
        )
        let screen = try #require(pushed["screen"]?["id"])

        let timedOut = await #expect(throws: VarlinkError.self) {
            try await client.call(
                "io.navhost.Navigation.Send",
                parameters: session.merging(["intent": "onTappedWait"]) { $1 }
            )
        }
        #expect(timedOut?.name == "io.navhost.Navigation.IntentTimedOut")
        #expect(timedOut?.parameters == ["screen": screen, "intent": "onTappedWait"])
        let stack = try await client.call("io.navhost.Navigation.Stack", parameters: session)
        let shown = try #require(stack["snapshot"]?["stack"]?.arrayValue?.last)
        #expect(shown["error"]?.stringValue?.contains("onTappedWait") == true, "the screen has an error state")

        // The screen is not wedged: its next intent is answered, and clears the error.
        let counted = try await client.call(
            "io.navhost.Navigation.Send",
            parameters: session.merging(["intent": "onTappedCount"]) { $1 }
        )
        #expect(counted["screen"]?["state"]?["count"] == 1)
        #expect(counted["screen"]?["error"] == nil)
        try await client.close()
        try await witness.confirm(unchanged: false)
    }

    @Test("A timed-out intent whose use case goes on writes nothing to its store after the reply: the write is refused")
    func storeWriteAfterTimingOut() async throws {
        let daemon = try SharedDaemon.daemon
        let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let session: JSONObject = ["session": "late-write"]
        _ = try await client.call(
            "io.navhost.Navigation.Navigate",
            parameters: session.merging(["route": "stall.main"]) { $1 }
        )
        let timedOut = await #expect(throws: VarlinkError.self) {
            try await client.call(
                "io.navhost.Navigation.Send",
                parameters: session.merging(["intent": "onTappedSaveLate"]) { $1 }
            )
        }
        #expect(timedOut?.name == "io.navhost.Navigation.IntentTimedOut")

        // Its use case ignored the cancellation and waits on: let go, it writes to the feature's store, and the
        // intent that let it go is answered with what became of that write.
        let released = try await client.call(
            "io.navhost.Navigation.Send",
            parameters: session.merging(["intent": "onTappedRelease"]) { $1 }
        )
        let lateWrite = released["screen"]?["state"]?["lateWrite"]?.stringValue
        // Before: "written", and the store held it, though its intent's caller had been told it did not finish.
        #expect(lateWrite == "refused: CancellationError()", "\(String(describing: lateWrite))")
        let stored = (try? String(contentsOfFile: "\(daemon.stateDirectory)/store/Stall.json", encoding: .utf8)) ?? ""
        #expect(!stored.contains("late"), "\(stored)")
        try await client.close()
    }
}
