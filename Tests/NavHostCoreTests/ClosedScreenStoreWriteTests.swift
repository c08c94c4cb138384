import InMemoryLogging
import Logging
import NavHostCore
import NavHostKit
import Testing

@MainActor
@Suite("The store writes of an intent whose screen another call closed")
struct ClosedScreenStoreWriteTests {
    @Test(
        "An intent that begins a store write and has its opener pop its screen in the same stretch is answered ScreenClosed once the write landed"
    )
    func closeInTheFirstStretchWaitsForTheWriteUnderWay() async throws {
        let store = HeldStore()
        let catalog = FeatureCatalog()
        try catalog.register(
            LedgerFeature(),
            services: HostServices(logger: .silent, clock: ContinuousClock(), store: store, resourceDirectory: ".")
        )
        let logs = InMemoryLogHandler()
        let registry = SessionRegistry(catalog: catalog, logger: Logger(label: "test") { _ in logs })
        let session = try registry.open(SessionConfiguration(root: RouteRequest(id: "ledger.main")))
        try await session.send(IntentMessage(name: "onTappedOpenEntry"))
        #expect(session.routeIDs == ["ledger.main", "ledger.entry"])

        let reply = ClosedScreenReply()
        let sending = Task { @MainActor in
            defer { reply.came = true }
            try await session.send(IntentMessage(name: "onTappedSaveThenCloseThroughOpener"))
        }
        // The write began, and the entry was popped (through main's Router: not its own navigation), in the intent's
        // first stretch: the close is seen as that stretch ends, not by `close()`, which found no caller waiting yet.
        await store.writeBegan.wait()
        #expect(session.routeIDs == ["ledger.main"])
        let waits = {
            logs.entries.contains {
                $0.message.description.hasPrefix("Waiting for the store writes")
                    && $0.metadata["navhost.waiting"] == "its ScreenClosed reply"
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !waits() && !reply.came && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        // Before the first stretch's close waited for the writes under way, ScreenClosed came at once, the write held.
        try #require(!reply.came, "answered before the write under way at the close landed")
        try #require(waits(), "the reply does not wait for the write")

        store.release.open()
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .screenClosed, "\(String(describing: error))")
        #expect(store.hasLanded, "the write under way at the close landed before the reply")
        #expect(try await store.base.value(forKey: "entrySaved") == true)
    }
}

/// Whether a call was answered, set by the task that made it.
@MainActor
private final class ClosedScreenReply {
    var came = false
}
