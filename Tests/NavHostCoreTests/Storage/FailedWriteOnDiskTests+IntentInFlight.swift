import Foundation
import InMemoryLogging
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Synchronization
import Testing

// An intent in flight on a screen that a failed background save's take-back builds again: the intent is delivered
// again to the rebuilt screen, which answers it. A redo of session 50 broke this (its review, 89e3bc9): the take-back,
// run from a task the intent's work started, closed the screen as "the intent's own work", and the old, cancelled
// ViewModel answered. And one whose screen a Pop closed is not delivered again when the Pop's failed save brings a
// screen of that ID back while its caller waits for the intent's store write.

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

    @Test(
        "An intent whose screen a Pop closed with its store write under way is answered ScreenClosed, not delivered again to the screen the Pop's failed save brings back under its ID"
    )
    func poppedScreenBroughtBackGetsNoSecondDelivery() async throws {
        let store = HeldStore()
        let catalog = try FeatureCatalog.holding([ProfileFeature()])
        try catalog.register(
            LedgerFeature(),
            services: HostServices(logger: .silent, clock: ContinuousClock(), store: store, resourceDirectory: ".")
        )
        let logs = InMemoryLogHandler()
        let registry = SessionRegistry(
            catalog: catalog,
            persistence: SessionPersistence(directory: directory, writes: disk),
            logger: Logger(label: "test") { _ in logs }
        )
        let session = try registry.open(main)
        try session.navigate(to: RouteRequest(id: "ledger.main"))
        try await registry.commit(session)
        let ledger = try session.screenID(of: nil)
        let sending = Task { @MainActor in try await session.send(IntentMessage(name: "onTappedSave"), to: ledger) }
        // The intent's write is under way, held: counted, its caller waits for it once the screen closes.
        await store.writeBegan.wait()

        // The Pop's save fails with nothing written: the pop is taken back, and a ledger screen built again under the
        // popped one's ID.
        disk.failNext([.beforeLanding])
        try session.pop()
        await #expect(throws: NavigationError.self) { try await registry.commit(session) }
        #expect(session.routeIDs == ["profile.user", "ledger.main"], "the pop was taken back")
        #expect(try session.screenID(of: nil) == ledger, "under the popped screen's ID")
        // The caller waits for the write (nothing else holds it): the log says so as the wait begins.
        let waits = {
            logs.entries.contains {
                $0.message.description.hasPrefix("Waiting for the store writes")
                    && $0.metadata["navhost.waiting"] == "its ScreenClosed reply"
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !waits() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(waits(), "the caller does not wait for the write")

        store.release.open()
        // Before cfb7d34, the wait's end found the screen brought back under the ID and delivered the intent there: a
        // second write, answered as done, while the cancelled work of the first could still write after it.
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .screenClosed, "\(String(describing: error))")
        #expect(store.writesBegun == 1, "the intent was delivered once")
        #expect(try session.screenSnapshot(ledger).state["saved"] == nil, "the screen brought back got no intent")
        #expect(try await store.base.value(forKey: "saved") == true, "the write under way at the close landed")
    }
}
