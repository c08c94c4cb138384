import Foundation
import IntegrationHarness
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Testing

/// `SessionRegistry.commitAll`, which a plugin's `Load`, `Reload` and `Unload` wait for before they answer: every
/// open session is committed, whatever became of the ones before it.
@MainActor
@Suite("Committing every session after a plugin change")
struct CommitAllTests {
    let directory: String
    let disk = FaultyDiskWrites()

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-commit-all-\(UUID())").path
    }

    @Test("A session a client closes while an earlier one is written is passed over; those after it are waited for")
    func sessionClosedMeanwhileIsPassedOver() async throws {
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: SessionPersistence(directory: directory, writes: disk),
            openedSessions: OpenedSessionsFile(directory: directory),
            logger: Logger(label: "test")
        )
        var sessions: [String: NavigationSession] = [:]
        for name in ["a", "b", "c"] {
            sessions[name] = try await registry.openDurably(
                OpenedSessionsFile.Entry(name: name, root: "profile.user", parameters: ["userID": .string(name)])
            )
        }
        // The first session's change is written first, and that write is held: the commit of every session waits
        // on it, with the other two to come.
        disk.holdTheWrite(1, toFilesOf: "a")
        try sessions["a"]?.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "a2"]))
        let committing = Task { await registry.commitAll() }
        try await waitUntil { disk.isHolding }

        // Meanwhile a client closes the second (its record is emptied behind the held write), and the third changes.
        let closing = Task { try await registry.closeDurably("b") }
        try await waitUntil { (try? registry.session("b")) == nil }
        try sessions["c"]?.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "c2"]))
        disk.release()

        let unsaved = await committing.value
        // Before, the closed session's SessionNotFound ended the loop: the third was not waited for, and the plugin
        // change was logged as leaving a session unsaved.
        #expect(unsaved.isEmpty, "\(unsaved)")
        guard case .record(let third) = try SessionPersistence(directory: directory).file(for: "c").load() else {
            Issue.record("no record of the third session on disk")
            return
        }
        #expect(third.stack.map(\.parameters) == [["userID": "c"], ["userID": "c2"]], "on disk once it returns")
        try await closing.value
    }

    /// Gives other tasks of the main actor turns until `condition` holds (a deadline, not a count of turns: a write
    /// waits for the disk).
    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: "the condition") }
            await Task.yield()
        }
    }
}
