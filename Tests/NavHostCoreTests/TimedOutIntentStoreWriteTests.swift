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
}
