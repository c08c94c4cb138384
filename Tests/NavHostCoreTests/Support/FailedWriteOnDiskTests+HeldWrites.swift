import NavHostCore
import NavHostKit
import NavHostStorage
import Testing

// Writes a FailedWriteOnDiskTests test holds on the disk (FaultyDiskWrites.holdNext) while it arranges what meets them,
// and the waits for what it arranges.

extension FailedWriteOnDiskTests {
    /// Opens "main" at its root, durably, then ``pushWithItsWriteHeld(_:on:in:failing:)``: pushes `user`, whose commit's
    /// write the disk holds, then fails with `faults` once let go. The session and the commit's task.
    func openMainWithAPushHeld(
        _ registry: SessionRegistry,
        pushing user: RouteRequest = FailedWriteOnDiskTests.user("p"),
        failing faults: [FaultyDiskWrites.Fault]
    ) async throws -> (session: NavigationSession, push: Task<Void, any Error>) {
        let session = try registry.open(main)
        try await registry.commit(session)
        let push = try await pushWithItsWriteHeld(user, on: session, in: registry, failing: faults)
        return (session, push)
    }

    /// Pushes `user` on `session` and commits it in a task of its own (returned, answered for the session's take-backs
    /// from before the push), once the disk holds the next write (``waitUntilHolding()``): the push's, or its
    /// background save's. Let go (``FaultyDiskWrites/release()``), the writes fail with `faults`, one a write, in order.
    func pushWithItsWriteHeld(
        _ user: RouteRequest,
        on session: NavigationSession,
        in registry: SessionRegistry,
        failing faults: [FaultyDiskWrites.Fault]
    ) async throws -> Task<Void, any Error> {
        let takeBacks = session.takeBacks
        disk.holdNext()
        disk.failNext(faults)
        try session.navigate(to: user)
        let push = Task { @MainActor in try await registry.commit(session, takeBacks: takeBacks) }
        try await waitUntilHolding()
        return push
    }

    /// Waits until the disk holds a write back, one made after `writesBefore` writes were logged, or 30 s went by. A
    /// write held after one let go needs the count: the first one's hold ends only as the writer resumes.
    func waitUntilHolding(afterWrites writesBefore: Int = 0) async throws {
        let isHeld = { disk.isHolding && disk.log.count >= writesBefore }
        let deadline = ContinuousClock.now + .seconds(30)
        while !isHeld() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(isHeld(), "a write is held after \(writesBefore) writes: \(disk.log)")
    }

    /// Waits until at least `callers` callers of saves of "main" wait, on the write under way or on the record queued
    /// behind it (`queued` alone when `queuedOnly`), or 30 s went by: the commits and background saves made in tasks of
    /// their own have reached the writer, whatever the scheduling. At least, not exactly: a screen's own save (its
    /// ViewModel's state changing as it appears) may wait there too.
    func waitUntilQueued(_ persistence: SessionPersistence, callers: Int, queuedOnly: Bool = false) async throws {
        let count = {
            let waiting = persistence.callersWaiting(of: "main")
            return queuedOnly ? waiting.queued : waiting.onTheWrite + waiting.queued
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while count() < callers && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(
            count() >= callers,
            "saves waiting on the held write: \(persistence.callersWaiting(of: "main")), writes: \(disk.log)"
        )
    }
}
