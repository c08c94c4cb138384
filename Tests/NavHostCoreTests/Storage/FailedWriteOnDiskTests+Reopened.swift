import Foundation
import NavHostCore
import NavHostKit
import NavHostStorage
import Testing

// A reload that closes a session and opens its name again while a record of the closed one waits to be written: the
// new session's records replace it (SessionPersistence.sessionOpens), and each session's callers are answered for
// their own session's writes.

extension FailedWriteOnDiskTests {
    /// Waits until the disk holds a write back, or 30 s went by.
    func waitUntilHolding() async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !disk.isHolding && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(disk.isHolding, "a write is held: \(disk.log)")
    }

    @Test(
        "A commit waiting on a record a reload's new session of the name replaces is answered StorageFailed, not done"
    )
    func reopenedNameAnswersTheEarlierSessionsCallers() async throws {
        let (registry, persistence) = try makeRegistry()
        let session = try registry.open(main)
        try await registry.commit(session)
        // A push whose write is held; a second push's commit waits on the record queued behind it.
        disk.holdNext()
        try session.navigate(to: Self.user("p"))
        let first = Task { @MainActor in try await registry.commit(session) }
        try await waitUntilHolding()
        try session.navigate(to: Self.user("q"))
        let second = Task { @MainActor in try await registry.commit(session) }
        for _ in 0..<10 { await Task.yield() }
        // A reload closes the session and one declares it again: the new one opens from the file, without q.
        registry.close("main")
        let reopened = try registry.open(main)
        disk.release()
        _ = await first.result
        let answer = await second.result
        await registry.settleClosedSessions()
        // Before, the new session's first record answered the push's caller: done, with q never written.
        let error = #expect(throws: NavigationError.self, "q is not on disk: \(disk.log)") { try answer.get() }
        #expect(error?.message.contains("opened again") == true, "\(String(describing: error))")
        #expect(try !usersOnDisk().contains("q"))
        #expect(persistence.refusal(of: "main") == nil)
        #expect(try registry.session() === reopened)
    }

    @Test("A write of a session a reload replaced that fails strands nothing of the new session of the name")
    func earlierSessionsFailureLeavesTheNewOnesRecords() async throws {
        let (registry, persistence) = try makeRegistry(firstRewritePause: .seconds(3_600))
        let session = try registry.open(main)
        try await registry.commit(session)
        // A push whose write is held, then fails with nothing written.
        disk.holdNext()
        disk.failNext([.beforeLanding])
        try session.navigate(to: Self.user("p"))
        let earlier = Task { @MainActor in try await registry.commit(session) }
        try await waitUntilHolding()
        registry.close("main")
        let reopened = try registry.open(main)
        // The new session's push waits on its record, behind the held write.
        try reopened.navigate(to: Self.user("c"))
        let client = Task { @MainActor in try await registry.commit(reopened) }
        for _ in 0..<10 { await Task.yield() }
        disk.release()
        await #expect(throws: NavigationError.self, "p failed") { try await earlier.value }
        // Before, the failure took the new session's record with it: its push was answered StorageFailed and taken
        // back, for a write of the session before it.
        let answer = await client.result
        #expect(throws: Never.self, "writes: \(disk.log)") { try answer.get() }
        await persistence.waitForQueuedWrites()
        #expect(reopened.routeIDs.count == 2, "the new session keeps its push")
        #expect(try usersOnDisk() == ["root", "c"], "writes: \(disk.log)")
        #expect(persistence.refusal(of: "main") == nil)
    }
}
