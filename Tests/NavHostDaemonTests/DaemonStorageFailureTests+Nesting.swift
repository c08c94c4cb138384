import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// A state file nested deeper than the daemon reads back at start (64 levels of arrays and objects, the JSON reader's
// limit) is never written: the call that would make one is answered StorageFailed, or its store write fails, and
// nothing changes. Written, a session's record was acknowledged and then refused at the next start, the session
// starting afresh; a feature's store was set aside whole as corrupt. Reachable with the default limits: a restorable
// state or a stored value is the feature's own, however deep the client's message was.

extension DaemonStorageFailureTests {
    @Test("A restorable state nested past what the daemon reads back: StorageFailed, kill -9 keeps what was answered")
    func restorableStateNestedDeeperThanTheDaemonReadsBack() async throws {
        let (daemon, nav) = try await Self.daemonWithTheFaultyFixture()
        _ = try await nav.call("Navigate", ["route": "faulty.main"])
        _ = try await nav.call("Send", ["intent": "onChangedNesting", "arguments": ["levels": 40]])
        // The stack with each screen's state; revisions move on at a take-back and at a restart.
        let acknowledged = try await nav.call("Stack")["snapshot"]?["stack"]
        let failure = try await #require(throws: VarlinkError.self, "a record nested 70 levels deep is refused") {
            try await nav.call("Send", ["intent": "onChangedNesting", "arguments": ["levels": 70]])
        }
        #expect(failure.name == "io.navhost.Navigation.StorageFailed", "\(failure)")
        let reason = failure.parameters["reason"]?.stringValue ?? ""
        #expect(reason.contains("the daemon reads back"), "\(reason)")
        let after = try await nav.call("Stack")["snapshot"]?["stack"]
        #expect(after == acknowledged, "the refused Send changed nothing: \(after) against \(acknowledged)")
        try await daemon.crash()
        try await daemon.restart()
        let restarted = try await NavigationClient.connect(to: daemon)
        let restored = try await restarted.call("Stack")["snapshot"]?["stack"]
        #expect(restored == acknowledged, "it comes back as answered, not afresh: \(String(describing: restored))")
        #expect(try await restarted.topState()["nesting"] == 40)
        #expect(try await daemon.terminate() == 0)
    }

    @Test("A store value nested past what the daemon reads back is not written; the rest stays readable after kill -9")
    func storeValueNestedDeeperThanTheDaemonReadsBack() async throws {
        let (daemon, nav) = try await Self.daemonWithTheFaultyFixture()
        _ = try await nav.call("Send", ["intent": "onChangedSavedSlowly", "arguments": ["text": "kept"]])
        _ = try await nav.call("Send", ["intent": "onChangedNestedSaved", "arguments": ["levels": 40]])
        let failure = try await #require(throws: VarlinkError.self, "a store nested 70 levels deep is not written") {
            try await nav.call("Send", ["intent": "onChangedNestedSaved", "arguments": ["levels": 70]])
        }
        #expect(failure.name == "io.navhost.Navigation.IntentFailed", "\(failure)")
        #expect(daemon.log.contains("the daemon reads back"), "the intent's failure names the limit")
        try await daemon.crash()
        try await daemon.restart()
        // The store reads back at the next start: a feature's first use of it would set a file it cannot read aside.
        let restarted = try await NavigationClient.connect(to: daemon)
        _ = try await restarted.call("Send", ["intent": "onChangedSavedSlowly", "arguments": ["text": "again"]])
        #expect(try Self.nesting(of: DaemonDurabilityTests.storedValue("nested", of: "Faulty", in: daemon)) == 40)
        #expect(try DaemonDurabilityTests.storedValue("saved", of: "Faulty", in: daemon) == "again")
        #expect(!daemon.log.contains("Moved aside a store file"), "the store was not set aside as corrupt")
        #expect(try await daemon.terminate() == 0)
    }

    /// A daemon serving the `Faulty` fixture, session main at `faulty.main`, and a client of it.
    private static func daemonWithTheFaultyFixture() async throws -> (DaemonProcess, NavigationClient) {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"]
        )
        return (daemon, try await NavigationClient.connect(to: daemon))
    }

    /// How deep `value`'s arrays nest: 1 for `[]`.
    private static func nesting(of value: JSONValue?) -> Int {
        guard let elements = value?.arrayValue else { return 0 }
        return 1 + (elements.first.map { nesting(of: $0) } ?? 0)
    }
}
