import Logging
import NavHostCore
import NavHostKit
import NavHostTesting
import Testing

@MainActor
@Suite("The store writes around an intent that ran out of time, or whose screen closed")
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

    @Test(
        "An intent whose screen another call closed writes no more: a store write its work begins afterwards is refused"
    )
    func closedScreenIntentWritesNoMore() async throws {
        let ledger = LedgerFeature()
        let host = try FeatureTestHost(features: [ledger], root: "ledger.main")
        try await host.settle()
        try await host.send("onTappedOpenEntry")
        #expect(host.routeIDs == ["ledger.main", "ledger.entry"])
        let entry = host.top.id
        let sending = Task { @MainActor in try await host.send("onTappedSaveWhenLetGo", to: entry) }
        for _ in 0..<1000 where host.session.isIdle { await Task { @MainActor in }.value }
        #expect(!host.session.isIdle, "the entry's intent is not in flight")
        try host.pop()
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .screenClosed)

        // The intent's work, cancelled but going on, writes only now, after its caller heard ScreenClosed.
        ledger.saveGate.open()
        // Before session 50: written, behind the back of the caller told the intent did not finish.
        #expect(await ledger.lateSave.value().hasPrefix("refused"))
        #expect(try await host.store.value(forKey: "savedLate") == nil)
    }

    @Test(
        "An intent answered done keeps the store writes of the task it started, though it closed its screen through another screen's Router in the same stretch"
    )
    func doneIntentKeepsItsTasksWrites() async throws {
        // An editor whose save starts a task that writes, and whose presenter dismisses it, all in one stretch: the
        // close is seen once the intent has finished, and it must not take the write back from a caller told "done".
        let ledger = LedgerFeature()
        let host = try FeatureTestHost(features: [ledger], root: "ledger.main")
        try await host.settle()
        try await host.send("onTappedOpenEntry")
        let entry = host.top.id
        try await host.send("onTappedSaveLaterAndLeaveThroughMain", to: entry)
        #expect(host.routeIDs == ["ledger.main"])

        ledger.saveGate.open()
        // The reverted d449391 refused it: the close seen after the first stretch gave the finished intent up.
        #expect(await ledger.lateSave.value() == "written")
        #expect(try await host.store.value(forKey: "savedLate") == true)
    }

    @Test(
        "An intent answered done keeps the store writes of the task it started, though a screen it opened closed its screen, not as its own work, in the same stretch"
    )
    func doneIntentKeepsItsTasksWritesThoughAnotherScreensWorkClosedIt() async throws {
        // The close comes in the intent's first stretch, from the work of the screen it opened (ledger.leaver's
        // onAppear): not the entry's own work, so only the intent's outcome, already in, keeps it from being given up.
        let ledger = LedgerFeature()
        let host = try FeatureTestHost(features: [ledger], root: "ledger.main")
        try await host.settle()
        try await host.send("onTappedOpenEntry")
        let entry = host.top.id
        try await host.send("onTappedSaveLaterAndOpenLeaver", to: entry)
        #expect(host.routeIDs == ["ledger.main"])

        ledger.saveGate.open()
        #expect(await ledger.lateSave.value() == "written")
        #expect(try await host.store.value(forKey: "savedLate") == true)
    }

    @Test(
        "An intent whose screen its presenter dismissed at the intent's own request goes on: answered with its own outcome, its later store write kept"
    )
    func presenterDismissedIntentKeepsItsWrites() async throws {
        let ledger = LedgerFeature()
        let host = try FeatureTestHost(features: [ledger], root: "ledger.main")
        try await host.settle()
        try await host.send("onTappedOpenEntry")
        let entry = host.top.id
        let sending = Task { @MainActor in try await host.send("onTappedLeaveThroughMainThenSave", to: entry) }
        for _ in 0..<1000 where host.routeIDs.count > 1 { await Task { @MainActor in }.value }
        #expect(host.routeIDs == ["ledger.main"])

        // The entry's intent writes only now, after its screen closed: a close its own work asked for, through
        // ledger.main's Router. Counted as another call's close, it was answered ScreenClosed and the write refused.
        ledger.saveGate.open()
        try await sending.value
        #expect(await ledger.lateSave.value() == "written")
        #expect(try await host.store.value(forKey: "savedLate") == true)
    }

    @Test("An intent that closed its own screen and never returns is answered IntentTimedOut at its time limit")
    func selfClosedIntentTimesOut() async throws {
        let ledger = LedgerFeature()
        let host = try FeatureTestHost(features: [ledger], root: "ledger.main")
        try await host.settle()
        try await host.send("onTappedOpenEntry")
        let entry = host.top.id
        let reply = Reply()
        let sending = Task { @MainActor in
            defer { reply.came = true }
            try await host.send("onTappedLeaveThenHang", to: entry)
        }
        for _ in 0..<1000 where host.routeIDs.count > 1 { await Task { @MainActor in }.value }
        #expect(host.routeIDs == ["ledger.main"])
        await host.clock.advance(by: .seconds(30))
        for _ in 0..<1000 where !reply.came { await Task { @MainActor in }.value }
        // Before session 50 the time limit did not hold once its screen had closed: it waited for the intent's end.
        #expect(reply.came, "the intent is not answered at its time limit")
        ledger.saveGate.open()
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .intentTimedOut)
    }

    @Test(
        "A store write that never ends holds a ScreenClosed reply until the intent's time limit runs out, no longer"
    )
    func closedScreenWaitsNoLongerThanTheTimeLimit() async throws {
        let store = HeldStore()
        let clock = ManualClock()
        let session = try Self.ledgerSession(store: store, clock: clock)
        let reply = Reply()
        let sending = Task { @MainActor in
            defer { reply.came = true }
            try await session.send(IntentMessage(name: "onTappedSave"))
        }
        await store.writeBegan.wait()
        // Another call closes the screen, the intent's write under way: its caller waits for the write.
        try session.replace(with: [RouteRequest(id: "ledger.main")])
        for _ in 0..<20 { await Task { @MainActor in }.value }
        // Before session 50: ScreenClosed here, the write still to land.
        #expect(!reply.came)

        await clock.advance(by: .seconds(30))
        for _ in 0..<1000 where !reply.came { await Task { @MainActor in }.value }
        // Without the bound, the reply waited for as long as the write (a transform that never returns: forever).
        #expect(reply.came, "the ScreenClosed reply waits past the intent's time limit")
        store.release.open()
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .screenClosed)
    }

    @Test(
        "A store write that never ends does not hold the ScreenClosed reply of an intent whose session the stop closes"
    )
    func stopDoesNotWaitForStoreWrites() async throws {
        let store = HeldStore()
        let session = try Self.ledgerSession(store: store, clock: ManualClock())
        let reply = Reply()
        let sending = Task { @MainActor in
            defer { reply.came = true }
            try await session.send(IntentMessage(name: "onTappedSave"))
        }
        await store.writeBegan.wait()
        session.close(stopping: true)
        for _ in 0..<1000 where !reply.came { await Task { @MainActor in }.value }
        // Without the stop's release, the reply (and the daemon's stop) waited for the intent's time limit.
        #expect(reply.came, "the ScreenClosed reply waits for the store write at the stop")
        store.release.open()
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .screenClosed)
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

extension TimedOutIntentStoreWriteTests {
    /// A session at `ledger.main` over `store`, with a time limit of 30 s on `clock`.
    fileprivate static func ledgerSession(store: HeldStore, clock: ManualClock) throws -> NavigationSession {
        let catalog = FeatureCatalog()
        try catalog.register(
            LedgerFeature(),
            services: HostServices(logger: .silent, clock: clock, store: store, resourceDirectory: ".")
        )
        var options = SessionOptions()
        options.intentTimeLimit = .seconds(30)
        options.clock = clock
        return try NavigationSession(
            configuration: SessionConfiguration(root: RouteRequest(id: "ledger.main")),
            catalog: catalog,
            options: options,
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
    }
}

/// Whether a call was answered, set by the task that made it.
@MainActor
private final class Reply {
    var came = false
}
