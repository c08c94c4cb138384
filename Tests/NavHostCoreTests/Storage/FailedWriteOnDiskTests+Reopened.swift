import Foundation
import NavHostCore
import NavHostKit
import NavHostStorage
import NavHostWire
import Testing

// A reload that closes a session and opens its name again while a record of the closed one is being written or waits
// to be: the daemon opens the new session once those writes land (SessionRegistry.openOnceEarlierWritesLand); one
// opened at once takes the name's records (SessionPersistence.sessionOpens), and each session's callers are answered
// for their own session's writes.

extension FailedWriteOnDiskTests {
    /// Opens "main" at its root, durably, then pushes p, whose write is held (``waitUntilHolding()``), and q, whose
    /// commit waits on the record queued behind it; the session and the two commits' tasks. Each push is saved twice,
    /// by its commit and by its background save: four callers wait.
    func pushesOneHeldOneQueued(
        _ registry: SessionRegistry,
        _ persistence: SessionPersistence
    ) async throws -> (NavigationSession, Task<Void, any Error>, Task<Void, any Error>) {
        let (session, first) = try await openMainWithAPushHeld(registry, failing: [])
        try await waitUntilQueued(persistence, callers: 2)
        try session.navigate(to: Self.user("q"))
        let second = Task { @MainActor in try await registry.commit(session) }
        try await waitUntilQueued(persistence, callers: 4)
        return (session, first, second)
    }

    @Test(
        "A commit waiting on a record a new session of the name opened at once replaces is answered StorageFailed, not done"
    )
    func reopenedNameAnswersTheEarlierSessionsCallers() async throws {
        let (registry, persistence) = try makeRegistry()
        let (_, first, second) = try await pushesOneHeldOneQueued(registry, persistence)
        // The session closes and one of the name opens at once, not waiting for the writes as a reload does: the new
        // one opens from the file, without q.
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

    @Test("A reload that opens a name while the earlier session's writes are under way opens it once they land")
    func reloadOpensTheNameOnceTheEarlierWritesLand() async throws {
        let (registry, persistence) = try makeRegistry()
        // What navhostd sets: the configuration's sessions that are not open are opened again.
        registry.openConfiguredSessions = { _ = try? registry.openOnceEarlierWritesLand(self.main) }
        let (session, first, second) = try await pushesOneHeldOneQueued(registry, persistence)
        // A reload drops the name, another declares it again, with both writes still to land.
        registry.close("main")
        _ = try registry.openOnceEarlierWritesLand(main)
        // Meanwhile a call that names it is told the session is opening.
        let opening = #expect(throws: NavigationError.self) { try registry.session() }
        #expect(opening?.message.contains("opening once") == true, "\(String(describing: opening))")
        disk.release()
        let answers = [await first.result, await second.result]
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? registry.session()) == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        let reopened = try registry.session()
        await registry.settleClosedSessions()
        await persistence.waitForQueuedWrites()
        // Before, the new session read the file before p landed, and its first record wrote over p: the push was
        // answered done and gone from the disk (q's caller was answered StorageFailed: its record was never written).
        for answer in answers { #expect(throws: Never.self, "writes: \(disk.log)") { try answer.get() } }
        #expect(try usersOnDisk() == ["root", "p", "q"], "writes: \(disk.log)")
        #expect(reopened !== session && reopened.routeIDs.count == 3, "the new session holds both pushes")
        #expect(!registry.isBusy("main"))
    }

    @Test("A reload that opens a name while the earlier session's write fails after landing opens it without it")
    func reloadOpensTheNameWithoutTheEarlierFailedWrite() async throws {
        let (registry, persistence) = try makeRegistry()
        registry.openConfiguredSessions = { _ = try? registry.openOnceEarlierWritesLand(self.main) }
        // A push whose write is held, then lands and fails; so does the zeroing of the line, with nothing written.
        let (_, push) = try await openMainWithAPushHeld(registry, failing: [.afterLanding, .beforeLanding])
        registry.close("main")
        _ = try registry.openOnceEarlierWritesLand(main)
        disk.release()
        await #expect(throws: NavigationError.self, "p failed") { try await push.value }
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? registry.session()) == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        let reopened = try registry.session()
        await persistence.waitForQueuedWrites()
        // Before, the new session opened from the file as the failed write left it, with p, answered StorageFailed;
        // the closed session's last write, which takes it out, came after.
        #expect(reopened.routeIDs.count == 1, "the new session opens without p: \(disk.log)")
        #expect(try usersOnDisk() == ["root"], "writes: \(disk.log)")
    }

    @Test("A write of a session a reload replaced that fails strands nothing of the new session of the name")
    func earlierSessionsFailureLeavesTheNewOnesRecords() async throws {
        let (registry, persistence) = try makeRegistry(firstRewritePause: .seconds(3_600))
        // A push whose write is held, then fails with nothing written.
        let (_, earlier) = try await openMainWithAPushHeld(registry, failing: [.beforeLanding])
        // The push's commit and background save both wait.
        try await waitUntilQueued(persistence, callers: 2)
        registry.close("main")
        let reopened = try registry.open(main)
        // The new session's push waits on its record, behind the held write: its commit and its background save, and
        // the new session's first background save (its record on disk, but a write of the name under way).
        try reopened.navigate(to: Self.user("c"))
        let client = Task { @MainActor in try await registry.commit(reopened) }
        try await waitUntilQueued(persistence, callers: 3, queuedOnly: true)
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

    @Test("A session of a name opened before the earlier one's failed callers ran is not refused for their failure")
    func reopenedNameStartsWithoutTheEarlierRefusal() async throws {
        let (registry, persistence) = try makeRegistry(firstRewritePause: .seconds(3_600))
        // A push whose write is held as the session closes, then fails with nothing written.
        let (_, earlier) = try await openMainWithAPushHeld(registry, failing: [.beforeLanding])
        registry.close("main")
        disk.release()
        // The main actor stays here: neither the failed caller nor the settle runs before the name opens again.
        let deadline = ContinuousClock.now + .seconds(30)
        while persistence.refusal(of: "main") == nil && ContinuousClock.now < deadline { usleep(100) }
        try #require(persistence.refusal(of: "main") != nil, "the push's write failed: \(disk.log)")
        let reopened = try registry.open(main)
        try reopened.navigate(to: Self.user("c"))
        let answer = await Task { @MainActor in try await registry.commit(reopened) }.result
        await #expect(throws: NavigationError.self, "p failed") { try await earlier.value }
        // Before, the earlier session's refusal stayed, and its callers, whose record is not theirs any more, took
        // nothing back: the new session's push was refused for it, and taken back.
        #expect(throws: Never.self, "writes: \(disk.log)") { try answer.get() }
        await persistence.waitForQueuedWrites()
        #expect(reopened.routeIDs.count == 2, "the new session keeps its push")
        #expect(try usersOnDisk() == ["root", "c"], "writes: \(disk.log)")
    }

    @Test("A name a reload drops again while it waits for the earlier writes: the list's watchers hear one close")
    func droppedWhileOpeningTellsNoSecondClose() async throws {
        let (registry, persistence) = try makeRegistry()
        let dropped = Other()
        registry.openConfiguredSessions = {
            if !dropped.made { _ = try? registry.openOnceEarlierWritesLand(self.main) }
        }
        let (_, first, second) = try await pushesOneHeldOneQueued(registry, persistence)
        let watcher = registry.watchNames()
        // A reload drops the name, another declares it again, and a third drops it while it waits for the writes.
        registry.close("main")
        _ = try registry.openOnceEarlierWritesLand(main)
        dropped.made = true
        registry.close("main")
        disk.release()
        _ = [await first.result, await second.result]
        let deadline = ContinuousClock.now + .seconds(30)
        while registry.isBusy("main") && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(!registry.isBusy("main"), "the name waited for the writes, then opened nothing")
        var updates: [SessionListWatcher.Update] = []
        for _ in 0..<watcher.pendingCount {
            if let update = try await watcher.next() { updates.append(update) }
        }
        // The session that never opened under the name is not told closed: one close, of the one that was open.
        #expect(updates == [.snapshot(["main"], coalesced: false), .event(SessionListEvent(.closed, "main"))])
        #expect((try? registry.session()) == nil)
    }
}
