import Foundation
import InMemoryLogging
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Synchronization
import Testing

// The persistence's retry: a failed write that reached the disk is written over by the session's current state once
// the disk heals, without another call (``SessionPersistence/rewriteAfterFailures(of:with:)``).

extension FailedWriteOnDiskTests {
    /// Waits until the file holds `users`, as a restart reads it, or 30 s went by; the users it holds last.
    func waitUntilOnDisk(_ users: [String]) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(30)
        var onDisk = try usersOnDisk()
        while onDisk != users && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            onDisk = try usersOnDisk()
        }
        return onDisk
    }

    /// A session at [root, kept], durably, whose pop's journal line lands and fails, whose zeroing fails, and whose
    /// every write after that fails, the take-back's among them: the file holds the refused pop.
    ///
    /// - Parameter firstRewritePause: When the persistence's retry first writes the session again.
    func refusedPopLeftOnBrokenDisk(
        firstRewritePause: Duration = .milliseconds(50),
        logger: Logger = Logger(label: "test")
    ) async throws -> (SessionRegistry, SessionPersistence, NavigationSession) {
        let (registry, persistence) = try makeRegistry(firstRewritePause: firstRewritePause, logger: logger)
        let session = try registry.open(main)
        try await registry.commit(session)
        try session.navigate(to: Self.user("kept"))
        try await registry.commit(session)
        disk.failNext([.afterLanding, .beforeLanding])
        disk.breakDown(.beforeLanding)
        try session.pop()
        await #expect(throws: NavigationError.self) { try await registry.commit(session) }
        #expect(session.routeIDs.count == 2, "the pop was taken back")
        // The take-back's record is written in the background, and fails.
        let deadline = ContinuousClock.now + .seconds(30)
        while !disk.log.contains("replace main.json (beforeLanding)") && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(disk.log.contains("replace main.json (beforeLanding)"), "the take-back's write failed: \(disk.log)")
        #expect(try usersOnDisk() == ["root"], "the refused pop is in the file: \(disk.log)")
        return (registry, persistence, session)
    }

    @Test("A take-back whose write fails: once the disk heals, the file loses the refused change without a call")
    func takeBackRewriteFails() async throws {
        let (registry, persistence, session) = try await refusedPopLeftOnBrokenDisk()
        disk.heal()
        // Before, nothing wrote the session again until its next change: a crash until then brought the pop back.
        #expect(try await waitUntilOnDisk(["root", "kept"]) == ["root", "kept"], "writes: \(disk.log)")
        #expect(session.routeIDs.count == 2)
        await persistence.waitForQueuedWrites()
        #expect(!persistence.mayHoldFailedWrite(of: "main"))
        #expect(try registry.session() === session)
    }

    @Test(
        "The retry after a failed write stops when its session closes, and when the daemon stops",
        arguments: [false, true]
    )
    func rewritingStops(daemonStopping: Bool) async throws {
        // Its next round an hour away: it ends at the stop, not at a round that finds the session gone.
        let (registry, persistence, _) = try await refusedPopLeftOnBrokenDisk(firstRewritePause: .seconds(3_600))
        let retry = try #require(persistence.runningRewrite(of: "main"), "retrying while the disk fails")
        if daemonStopping {
            registry.shutDown()
        } else {
            registry.close("main")
        }
        // Without the stop, it went on as long as the disk failed, each write a new snapshot of a closed session.
        #expect(await ends(retry), "stopped: \(disk.log.count) writes")
        #expect(!persistence.isRewriting("main"))
    }

    /// Whether `task` ends within 30 s: a task that goes on is left to run, and the test does not hang on it.
    func ends(_ task: Task<Void, Never>) async -> Bool {
        let ended = Mutex(false)
        let watcher = Task {
            await task.value
            ended.withLock { $0 = true }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !ended.withLock({ $0 }) && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        watcher.cancel()
        return ended.withLock { $0 }
    }

    @Test(
        "A session closed by the stop or a reload while its file holds a refused change: one last write takes it out",
        arguments: [false, true]
    )
    func lastWriteAtClose(daemonStopping: Bool) async throws {
        // A retry that would not write again for an hour: the admin fixes the disk and restarts the daemon before.
        let (registry, _, _) = try await refusedPopLeftOnBrokenDisk(firstRewritePause: .seconds(3_600))
        disk.heal()
        if daemonStopping {
            registry.shutDown()
        } else {
            // As a reload that no longer declares it closes it.
            registry.close("main")
        }
        await registry.waitForQueuedWrites()
        // Before, the retry stopped with the session and the file kept the pop: the restart brought it back.
        #expect(try usersOnDisk() == ["root", "kept"], "writes: \(disk.log)")
    }

    @Test("A round of the retry before a failed write's callers took it back writes nothing, and leaves it to them")
    func retryLeavesTheTakeBackToTheCaller() async throws {
        let (registry, persistence) = try makeRegistry(firstRewritePause: .seconds(3_600))
        // A push whose write is held, then fails with nothing written: the file may hold it all the same, as far as
        // the writer knows, so the retry is on.
        let (session, client) = try await openMainWithAPushHeld(
            registry,
            pushing: Self.user("x"),
            failing: [.beforeLanding]
        )
        let takeBacks = session.takeBacks
        disk.release()
        let deadline = ContinuousClock.now + .seconds(30)
        // The main actor stays here, as when it is behind: the failed client cannot take the push back yet.
        while persistence.refusal(of: "main") == nil && ContinuousClock.now < deadline { usleep(100) }
        try #require(persistence.refusal(of: "main") != nil, "the push's write failed: \(disk.log)")
        // A round of the retry now, before the client.
        let round = await persistence.rewriteOnce("main")
        // Before, it saved the session's record, was refused, and took the push back itself, in a background save's
        // way (what the last write that succeeded wrote): it could let watchers hear of changes answered StorageFailed.
        #expect(round == .waitingForTakeBack)
        #expect(persistence.refusal(of: "main") != nil, "left to the failed client")
        #expect(session.takeBacks == takeBacks)
        _ = await client.result
        #expect(session.takeBacks == takeBacks + 1, "the client took the push back")
        #expect(persistence.refusal(of: "main") == nil)
    }

    @Test(
        "A round of the retry with a resume executor queues its save in its own stretch: behind a write that fails, it writes and takes back nothing"
    )
    func retryRoundWithAResumeExecutorQueuesInItsStretch() async throws {
        let executor = HoldableTaskExecutor()
        let (registry, persistence) = try makeRegistry(resumeExecutor: executor, firstRewritePause: .seconds(3_600))
        // A push whose write is held, then fails with nothing written.
        let (session, client) = try await openMainWithAPushHeld(
            registry,
            pushing: Self.user("x"),
            failing: [.beforeLanding]
        )
        let takeBacks = session.takeBacks
        // The push's commit and background save wait on the held write, or the second on the record queued behind it
        // (with the pushed screen's own save, at times).
        func waiting() -> Int {
            let callers = persistence.callersWaiting(of: "main")
            return callers.onTheWrite + callers.queued
        }
        var deadline = ContinuousClock.now + .seconds(30)
        while waiting() < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(waiting() >= 2, "the push's commit and save wait: \(disk.log)")
        // A round of the retry finds no refusal, and its save is queued behind the push's held write in the round's
        // own stretch (saveQueuedBeforeItsCallerSuspends); only its caller's wait is on the held executor. Until
        // session 52 the save was queued there, on its way to the writer while the push's write failed: the test was
        // that the failure recorded then still refused it.
        executor.hold()
        defer { executor.letGo() }
        let jobs = executor.jobs
        let round = Task { @MainActor in await persistence.rewriteOnce("main") }
        deadline = ContinuousClock.now + .seconds(30)
        while executor.jobs == jobs && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(executor.jobs > jobs, "the round's caller waits on the executor: \(disk.log)")
        disk.release()
        deadline = ContinuousClock.now + .seconds(30)
        while persistence.refusal(of: "main") == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        try #require(persistence.refusal(of: "main") != nil, "the push's write failed: \(disk.log)")
        executor.letGo()
        // Before, the refusal was looked at on the main actor and the save queued later: the save was refused, and
        // the retry took the push back in a background save's way, before the failed client.
        #expect(await round.value == .waitingForTakeBack, "writes: \(disk.log)")
        _ = await client.result
        #expect(session.takeBacks == takeBacks + 1, "the client took the push back")
        #expect(persistence.refusal(of: "main") == nil)
    }

    @Test("A round of the retry whose save waits behind a client's write that fails leaves the take-back to the client")
    func retryRoundStrandedBehindAFailure() async throws {
        let (registry, persistence) = try makeRegistry(firstRewritePause: .seconds(3_600))
        let session = try registry.open(main)
        try await registry.commit(session)
        let takeBacks = session.takeBacks
        // A push whose write is held, then fails with nothing written; its commit and its background save wait.
        disk.holdNext()
        disk.failNext([.beforeLanding])
        try session.navigate(to: Self.user("x"))
        let client = Task { @MainActor in try? await registry.commit(session, takeBacks: takeBacks) }
        try await waitUntilHolding()
        try await waitUntilQueued(persistence, callers: 2)
        // A round of the retry now finds no refusal: its save waits behind the held write.
        let round = Task { @MainActor in await persistence.rewriteOnce("main") }
        let deadline = ContinuousClock.now + .seconds(30)
        while persistence.callersWaiting(of: "main").queuedUnlessRefused == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        try #require(persistence.callersWaiting(of: "main").queuedUnlessRefused == 1, "the round's save is queued")
        disk.release()
        // Before, the round's save was answered the write's failure, as the client's were: the round counted as
        // saved, and its save took the push back in a background save's way when it was the first to run.
        #expect(await round.value == .waitingForTakeBack, "writes: \(disk.log)")
        await client.value
        #expect(session.takeBacks == takeBacks + 1, "the push was taken back once")
        #expect(persistence.refusal(of: "main") == nil)
    }

    /// Records, for ``backgroundSaveFindsItsStackWritten()``, how a client's commit of the refused push was answered.
    @MainActor final class Answer {
        var result: Result<Void, any Error>?
    }

    @Test("A background save first to meet a failure, its stack as last written: the refused push leaves the file")
    func backgroundSaveFindsItsStackWritten() async throws {
        // The failed write's callers resume in the order the writer answers them (one serial executor, as navhostd's
        // main loop): the push's background save, whose write it was, first. On the global executor they raced to the
        // main actor, and on a loaded machine the client's commit was first at times, taking the push back.
        let (registry, persistence) = try makeRegistry(resumeExecutor: QueueTaskExecutor())
        let session = try registry.open(main)
        try await registry.commit(session)
        try session.navigate(to: Self.user("kept"))
        try await registry.commit(session)
        let takeBacks = session.takeBacks
        // The push's background save is held, then its line lands and fails, and so does its zeroing; the client's
        // commit of the push, and the pop's background save, wait behind it.
        disk.holdNext()
        disk.failNext([.afterLanding, .beforeLanding])
        try session.navigate(to: Self.user("x"))
        let deadline = ContinuousClock.now + .seconds(30)
        while !disk.isHolding && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(disk.isHolding, "the push's background save is held: \(disk.log)")
        let answer = Answer()
        let client = Task { @MainActor in
            do {
                try await registry.commit(session, takeBacks: takeBacks)
                answer.result = .success(())
            } catch {
                answer.result = .failure(error)
            }
        }
        try await waitUntilQueued(persistence, callers: 1, queuedOnly: true)
        try session.pop()
        // The pop's background save waits on the same record.
        try await waitUntilQueued(persistence, callers: 2, queuedOnly: true)
        disk.release()
        await client.value
        await persistence.waitForQueuedWrites()
        // The push's background save ran first: its session's stack was the one last written, so it took nothing
        // back and wrote nothing.
        #expect(session.takeBacks == takeBacks, "nothing was taken back; writes: \(disk.log)")
        guard case .failure = answer.result else {
            Issue.record("the push was answered \(String(describing: answer.result)); writes: \(disk.log)")
            return
        }
        // Before, nothing wrote over the push's line: the file held the push answered StorageFailed.
        #expect(try await waitUntilOnDisk(["root", "kept"]) == ["root", "kept"], "writes: \(disk.log)")
    }
}

// MARK: The last write at a close

extension FailedWriteOnDiskTests {
    @Test(
        "A write under way at the stop that fails after the last write was queued: the last write is written again"
    )
    func lastWriteAfterAFailureUnderWay() async throws {
        let (registry, _, session) = try await refusedPopLeftOnBrokenDisk(firstRewritePause: .seconds(3_600))
        disk.heal()
        // A push whose write is held, then fails with nothing written: the stop's last write queues behind it.
        let client = try await pushWithItsWriteHeld(
            Self.user("x"),
            on: session,
            in: registry,
            failing: [.beforeLanding]
        )
        registry.shutDown()
        disk.release()
        await #expect(throws: NavigationError.self, "the push failed") { try await client.value }
        await registry.settleClosedSessions()
        // Before, the failure dropped the last write queued behind it, and nothing wrote it again: the process
        // exited with the refused pop in the file.
        #expect(try usersOnDisk() == ["root", "kept"], "writes: \(disk.log)")
    }

    @Test("A refused OpenSession whose emptied record fails too: it is written again, and the name starts at its root")
    func refusedOpenEmptiedWriteFails() async throws {
        // As in refusedOpenLeavesItsRecordEmptied: the OpenSession's own commit meets the failure first.
        let (registry, listFolder) = try makeRegistryOpeningOverTheWire()
        defer { try? FileManager.default.removeItem(atPath: listFolder) }
        // The first record lands and fails; the emptied one, at the refused session's close, fails with nothing
        // written.
        disk.failNext([.afterLanding, .beforeLanding])
        let answer = await Task {
            try await registry.openDurably(
                OpenedSessionsFile.Entry(name: "kiosk", root: "profile.user", parameters: ["userID": "wire"])
            )
        }.result
        #expect(throws: NavigationError.self, "refused") { try answer.get() }
        #expect(disk.log.prefix(2) == ["replace kiosk.json (afterLanding)", "replace kiosk.json (beforeLanding)"])
        registry.declareConfiguredSessions(["kiosk"])
        let configured = try registry.open(SessionConfiguration(name: "kiosk", root: Self.user("conf")))
        // Before, nothing wrote the emptied record again, nor said so: the configuration's session opened at the
        // refused one's root.
        #expect(configured.snapshot.stack.map(\.route.parameters) == [["userID": "conf"]], "writes: \(disk.log)")
    }
}

// MARK: A save queued in its caller's stretch

extension FailedWriteOnDiskTests {
    @Test(
        "A save is queued before its caller suspends, with a resume executor too: a newer record queued after it, whose write fails, is not overwritten by it"
    )
    func saveQueuedBeforeItsCallerSuspends() async throws {
        // The caller's hop to the executor waits: what the main actor does meanwhile comes before any of its work there.
        let executor = HoldableTaskExecutor()
        executor.hold()
        defer { executor.letGo() }
        let persistence = SessionPersistence(
            directory: directory,
            writes: disk,
            resumeExecutor: executor,
            firstRewritePause: .seconds(3_600)
        )
        // A background save of a session's stack, as a change's (taken and saved in one stretch of the main actor)…
        let saving = Task { try await persistence.save(Self.record(revision: 1, users: ["wire"])) }
        let deadline = ContinuousClock.now + .seconds(30)
        while executor.jobs == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(executor.jobs > 0, "the save's caller went to the executor")
        await persistence.waitForQueuedWrites()
        // …then the session's record emptied as it closes, whose write fails with nothing written.
        disk.failNext([.beforeLanding])
        persistence.submit(Self.record(revision: 2, users: []))
        await persistence.waitForQueuedWrites()
        executor.letGo()
        _ = await saving.result
        await persistence.waitForQueuedWrites()
        // Before, the older record was queued only once its caller ran on the executor, after the newer one's failure
        // had ended the order of the session's records: it was written over it, and landed. The file held the stack,
        // and the persistence said no write of the session could be missing: the settle ended without writing the
        // emptied record again (refusedOpenEmptiedWriteFails, seen failing once under load).
        #expect(disk.log.first == "replace kiosk.json", "the save, queued first, was written first: \(disk.log)")
        #expect(persistence.mayHoldFailedWrite(of: "kiosk"), "the emptied record's failure is still to write over")
    }

    /// A record of session "kiosk" at `revision`, whose stack holds a profile screen of each of `users`.
    static func record(revision: UInt64, users: [String]) -> SessionRecord {
        SessionRecord(
            session: "kiosk",
            revision: revision,
            nextScreenNumber: users.count + 1,
            stack: users.enumerated().map { index, user in
                .init(
                    id: ScreenID("s\(index + 1)"),
                    route: "profile.user",
                    parameters: ["userID": .string(user)],
                    presentation: .push,
                    restorable: nil
                )
            }
        )
    }
}

extension FailedWriteOnDiskTests {
    @Test("A session closed while the settle gives up on another is written as many times: its last write lands")
    func settleGivesUpSessionBySession() async throws {
        let logs = InMemoryLogHandler()
        let (registry, _, _) = try await refusedPopLeftOnBrokenDisk(
            firstRewritePause: .seconds(3_600),
            logger: Logger(label: "test") { _ in logs }
        )
        // A second session whose push lands and fails, and whose take-back's write fails: its file holds the push.
        disk.heal()
        let other = try registry.open(SessionConfiguration(name: "other", root: Self.user("o")))
        try await registry.commit(other)
        disk.failNext([.afterLanding])
        disk.breakDown(.beforeLanding)
        try other.navigate(to: Self.user("refused"))
        await #expect(throws: NavigationError.self) { try await registry.commit(other) }
        try #require(try await waitUntilLogged("replace other.json (beforeLanding)"), "writes: \(disk.log)")
        #expect(try usersOnDisk(of: "other") == ["o", "refused"])
        // "main" closes, and its settle writes it again; "other" closes four of those writes later, one before "main"
        // is given up, and is written 5 times from then on, the last 0.4 s after its fourth.
        let closing = disk.log.count
        registry.close("main")
        let deadline = ContinuousClock.now + .seconds(30)
        while disk.log.dropFirst(closing).filter({ $0.contains(" main.") }).count < 5,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(1))
        }
        registry.close("other")
        // The disk heals once "main" is given up; "other" has writes left.
        let gaveUp = { logs.entries.contains { $0.message.description.hasPrefix("Gave up") } }
        while !gaveUp() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(gaveUp(), "the settle gave \"main\" up: \(disk.log)")
        disk.heal()
        await registry.settleClosedSessions()
        // Before, the settle started at "main"'s close gave up on every session it held at its last round, "other"
        // among them after one or two writes, and the stop's found nothing left: the refused push stayed in its file.
        #expect(try usersOnDisk(of: "other") == ["o"], "writes: \(disk.log)")
    }

    /// Waits until the disk's log holds `write`, or 30 s went by; whether it does.
    func waitUntilLogged(_ write: String) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !disk.log.contains(write) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        return disk.log.contains(write)
    }
}
