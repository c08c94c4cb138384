import Logging
import NavHostCore
import NavHostKit
import NavHostTesting
import Testing

@MainActor
@Suite("The store writes around an intent that ran out of time")
struct TimedOutIntentStoreWriteTests {
    @Test("A task onDisappear starts while another screen's intent closes it is not that intent's: it writes after all")
    func onDisappearTaskIsNotTheClosingIntents() async throws {
        let ledger = LedgerFeature()
        let host = try FeatureTestHost(features: [ledger], root: "ledger.main")
        try await host.settle()
        let main = host.top.id
        try await host.send("onTappedOpenEntry")
        #expect(host.routeIDs == ["ledger.main", "ledger.entry"])
        let revision = host.revision
        let sending = Task { @MainActor in try await host.send("onTappedCloseEntryAndHang", to: main) }
        try await host.waitForRevision(revision + 1)
        #expect(host.routeIDs == ["ledger.main"])
        await host.clock.advance(by: .seconds(30))
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .intentTimedOut)

        // The entry's cleanup, started in its `onDisappear` and let go only now, after main's intent was given up on.
        ledger.cleanupGate.open()
        // Before: refused, the task counted as the work of the intent whose stretch closed the entry.
        #expect(await ledger.cleanupOutcome() == "written")
        #expect(try await host.store.value(forKey: "cleanedUp") == true)
    }

    @Test("A store write under way when the time runs out is waited for: IntentTimedOut comes once it is stored")
    func writeUnderWayIsWaitedFor() async throws {
        let store = HeldStore()
        let clock = ManualClock()
        let catalog = FeatureCatalog()
        try catalog.register(
            LedgerFeature(),
            services: HostServices(logger: .silent, clock: clock, store: store, resourceDirectory: ".")
        )
        var options = SessionOptions()
        options.intentTimeLimit = .seconds(30)
        options.clock = clock
        let session = try NavigationSession(
            configuration: SessionConfiguration(root: RouteRequest(id: "ledger.main")),
            catalog: catalog,
            options: options,
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        let reply = Reply()
        let sending = Task { @MainActor in
            defer { reply.came = true }
            try await session.send(IntentMessage(name: "onTappedSave"))
        }
        await store.writeBegan.wait()
        await clock.advance(by: .seconds(30))
        // The time ran out: the intent no longer counts as the screen's work. Its caller still waits, for the write.
        for _ in 0..<1000 where !session.isIdle { await Task { @MainActor in }.value }
        #expect(session.isIdle)
        for _ in 0..<20 { await Task { @MainActor in }.value }
        // Before the wait for the write: IntentTimedOut here, the write still to land.
        #expect(!reply.came)

        store.release.open()
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .intentTimedOut)
        #expect(try await store.base.value(forKey: "saved") == true)
    }
}

/// Whether a call was answered, set by the task that made it.
@MainActor
private final class Reply {
    var came = false
}
