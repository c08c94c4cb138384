import Synchronization
import Testing

@testable import NavHostCore

// A configuration (the start's, or a reload's) that declares a session opened over the wire takes it over: the list
// of opened sessions is written without it, and READY=1 waits for that write (`adoptedSessionsWritten`).

/// Whether a wait has returned.
private final class Returned: Sendable {
    private let flag = Mutex(false)
    var value: Bool { flag.withLock { $0 } }
    func note() { flag.withLock { $0 = true } }
}

extension FailedWriteOnDiskTests {
    /// Starts waiting for `registry`'s taking over to be written; `Returned` says when the wait has returned.
    private func waitingForTheTakingOver(of registry: SessionRegistry) -> (Task<Void, Never>, Returned) {
        let returned = Returned()
        let waiting = Task { @MainActor in
            await registry.adoptedSessionsWritten()
            returned.note()
        }
        return (waiting, returned)
    }

    /// Waits (up to 30 s) until `listDisk` holds a write.
    private func untilHolding(_ listDisk: FaultyDiskWrites) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !listDisk.isHolding && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(listDisk.isHolding, "a write of the list is held")
    }

    @Test("The wait for a taking over returns once the list without the session is written, not before")
    func takingOverIsWaitedFor() async throws {
        let listDisk = FaultyDiskWrites()
        let (registry, list) = try await registryWithKiosk(listDisk: listDisk)
        listDisk.holdNext()
        registry.declareConfiguredSessions(["kiosk"])
        let (waiting, returned) = waitingForTheTakingOver(of: registry)
        try await untilHolding(listDisk)
        // Before the start's and the reload's wait, READY=1 went out here, with the list on disk still naming it.
        #expect(!returned.value, "the wait holds while the list is being written")
        #expect(try list.load().get().map(\.name) == ["kiosk"])
        listDisk.release()
        await waiting.value
        #expect(try list.load().get().map(\.name) == [], "the list a restart reads leaves it out")
    }

    @Test("A CloseSession writing the list when a reload declares its name: the wait covers that write too")
    func closeUnderWayIsWaitedFor() async throws {
        let listDisk = FaultyDiskWrites()
        let (registry, list) = try await registryWithKiosk(listDisk: listDisk)
        listDisk.holdNext()
        let closing = Task { try await registry.closeDurably("kiosk") }
        try await untilHolding(listDisk)
        // The close took the name out of the list already: there is nothing to take over, but the list on disk
        // still names it until the close's write lands.
        registry.declareConfiguredSessions(["kiosk"])
        let (waiting, returned) = waitingForTheTakingOver(of: registry)
        for _ in 0..<100 { await Task.yield() }
        #expect(!returned.value, "the wait holds while the close's list is being written")
        listDisk.release()
        await waiting.value
        #expect(try list.load().get().map(\.name) == [], "written by the time the wait returns")
        _ = try? await closing.value
    }

    @Test("A taking over whose list write fails: the wait returns, and the next declaration writes it again")
    func failedTakingOverIsWrittenAtTheNextReload() async throws {
        let listDisk = FaultyDiskWrites()
        let (registry, list) = try await registryWithKiosk(listDisk: listDisk)
        listDisk.failNext([.beforeLanding])
        registry.declareConfiguredSessions(["kiosk"])
        await registry.adoptedSessionsWritten()
        #expect(try list.load().get().map(\.name) == ["kiosk"], "not written: \(listDisk.log)")
        // A reload with the same configuration takes nothing new over, but the list is still to write.
        registry.declareConfiguredSessions(["kiosk"])
        await registry.adoptedSessionsWritten()
        #expect(try list.load().get().map(\.name) == [], "written at the next reload: \(listDisk.log)")
    }
}
