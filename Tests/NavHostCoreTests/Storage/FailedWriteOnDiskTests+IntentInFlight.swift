import Foundation
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Synchronization
import Testing

// An intent in flight on a screen that a failed background save's take-back builds again: the intent is delivered
// again to the rebuilt screen, which answers it. A redo of session 50 broke this (its review, 89e3bc9): the take-back,
// run from a task the intent's work started, closed the screen as "the intent's own work", and the old, cancelled
// ViewModel answered.

extension FailedWriteOnDiskTests {
    @Test(
        "An intent in flight on a screen a failed background save's take-back rebuilds is delivered again to the rebuilt screen, which answers it"
    )
    func takeBackDeliversTheIntentInFlightAgain() async throws {
        let drafts = DraftFeature()
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), drafts]),
            persistence: SessionPersistence(directory: directory, writes: disk),
            logger: Logger(label: "test")
        )
        let session = try registry.open(
            SessionConfiguration(root: RouteRequest(id: "draft.editor", parameters: ["documentID": "d"]))
        )
        try await registry.commit(session)
        let editor = try session.screenID(of: nil)
        // The background save of the intent's restorable change fails, with nothing written: the change is taken back,
        // and with it the editor, built again from the record on disk (an empty text).
        disk.failNext([.beforeLanding])
        let sending = Task { @MainActor in
            try await session.send(
                IntentMessage(name: "onChangedTextThenWait", arguments: ["text": "typed"]),
                to: editor
            )
        }
        let deliveredTwice = { drafts.waitingRoom.deliveries.load(ordering: .relaxed) >= 2 }
        let deadline = ContinuousClock.now + .seconds(30)
        while !deliveredTwice() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(deliveredTwice(), "the intent was not delivered again; writes: \(disk.log)")
        #expect(disk.log.contains { $0.hasSuffix("(beforeLanding)") }, "the background save failed: \(disk.log)")
        drafts.waitingRoom.gate.open()
        // Answered by the rebuilt editor, whose state holds the text its delivery set (the old one's was taken back).
        try await sending.value
        #expect(drafts.waitingRoom.deliveries.load(ordering: .relaxed) == 2)
        #expect(try session.screenSnapshot(editor).state["text"] == "typed")
        try await registry.commit(session)
    }
}
