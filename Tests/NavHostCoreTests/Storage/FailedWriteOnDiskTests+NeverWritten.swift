import InMemoryLogging
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import NavHostWire
import Testing

// A session the persistence holds no written stack of (a fresh one whose first write failed), on a disk that keeps
// failing: a take-back whose catch-up holds just what the failed write it takes back tried to write holds that event
// for the persistence's retry instead of saving it, so the failed writes follow the retry's rounds, and the log says
// one line per run of failures (SessionRegistry.isCatchUpForTheRetry, SessionRegistry+FailureRuns.swift).

extension FailedWriteOnDiskTests {
    /// Opens "main" on a disk that fails every write after its bytes landed, from the session's first, and pushes p,
    /// with a watcher started right after the push: its snapshot shows p, held. p's background save fails and takes p
    /// back; the take-back's catch-up (the root alone) differs from that write, and is saved at once; it fails in turn,
    /// and its take-back's catch-up holds what that write tried. Returns once those two take-backs are made and every
    /// write queued has ended; the retry's own rounds wait an hour (`firstRewritePause`), so the test runs them
    /// (``SessionPersistence/rewriteOnce(_:)``).
    func pushOnADiskFailingFromTheStart(
        _ registry: SessionRegistry,
        _ persistence: SessionPersistence
    ) async throws -> (session: NavigationSession, watcher: SessionWatcher) {
        disk.breakDown(.afterLanding)
        let session = try registry.open(main)
        await #expect(throws: NavigationError.self) { try await registry.commit(session) }
        let takeBacks = session.takeBacks
        try session.navigate(to: Self.user("p"))
        let watcher = session.watch()
        // p's save and the take-back's are queued from tasks of their own: the main actor and the writer are let go
        // until both failed and were taken back, for 30 s at most: a regression fails here rather than hangs. (A
        // hundred rounds of letting them go, as it was, ran out before the second take-back under the load of a
        // full suite on two cores: seen in sessions 45 and 51, takeBacks 0 or 1.)
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while session.takeBacks < takeBacks + 2, ContinuousClock.now < deadline {
            await Task.yield()
            await persistence.waitForQueuedWrites()
            if session.takeBacks < takeBacks + 2 { try await Task.sleep(for: .milliseconds(1)) }
        }
        try #require(session.takeBacks >= takeBacks + 2, "p's save and the take-back's failed and were taken back")
        await persistence.waitForQueuedWrites()
        return (session, watcher)
    }

    /// Runs `count` rounds of the persistence's retry of "main", each to its end (its write, and its take-back when
    /// the write fails), then lets the main actor and the writer go ten times, so that what the session saves by
    /// itself is saved (and fails) between rounds: each catch-up's own save, before, made a write or more each time.
    func runRetryRounds(_ count: Int, of persistence: SessionPersistence) async {
        for _ in 0..<count {
            _ = await persistence.rewriteOnce("main")
            for _ in 0..<10 {
                for _ in 0..<3 { await Task.yield() }
                await persistence.waitForQueuedWrites()
            }
        }
    }

    /// The users of the stack `watcher` shows once it has taken every update waiting for it.
    func usersShown(by watcher: SessionWatcher, from shown: [ScreenSnapshot] = []) async throws -> [String] {
        var stack = shown
        for _ in 0..<watcher.pendingCount {
            switch try await watcher.next() {
            case .snapshot(let snapshot, _): stack = snapshot.stack
            case .event(let event):
                switch event.change {
                case .pushed(let screen): stack.append(screen)
                case .popped(let ids): stack.removeAll { ids.contains($0.id) }
                case .replaced(let screens): stack = screens
                case .stateChanged, .errorChanged: break
                }
            case nil: break
            }
        }
        return stack.map { $0.route.parameters["userID"]?.stringValue ?? "?" }
    }

    @Test(
        "A session never written, on a disk that keeps failing: one failed write per round of the retry, and once the disk heals its file and its watchers show the released state"
    )
    func takeBacksOfASessionNeverWrittenFollowTheRetry() async throws {
        let (registry, persistence) = try makeRegistry(
            resumeExecutor: QueueTaskExecutor(),
            firstRewritePause: .seconds(3_600)
        )
        defer { disk.heal() }
        let (session, watcher) = try await pushOnADiskFailingFromTheStart(registry, persistence)
        let writes = disk.log.count
        let takeBacks = session.takeBacks
        let rounds = 6
        await runRetryRounds(rounds, of: persistence)
        // One failed write and one take-back per round, exactly. Before, the catch-up of each take-back was saved at
        // once, failed, and was taken back again: the writes went on by themselves, hundreds of them while the rounds
        // ran.
        #expect(writesOfMain(after: writes) == rounds, "writes: \(disk.log.count - writes)")
        #expect(session.takeBacks - takeBacks == rounds, "take-backs: \(session.takeBacks - takeBacks)")
        #expect(session.routeIDs == ["profile.user"], "p is taken back")

        disk.heal()
        await runRetryRounds(1, of: persistence)
        #expect(try usersOnDisk() == ["root"], "writes: \(disk.log.suffix(4))")
        #expect(!persistence.mayHoldFailedWrite(of: "main"))
        #expect(try await usersShown(by: watcher) == ["root"], "the watcher shown p is put right")
        #expect(try await usersShown(by: session.watch()) == ["root"])
    }

    @Test("A watcher shown a change whose write failed gets the catch-up, held for the retry, once the disk heals")
    func watcherShownAHeldChangeIsPutRight() async throws {
        let (registry, persistence) = try makeRegistry(
            resumeExecutor: QueueTaskExecutor(),
            firstRewritePause: .seconds(3_600)
        )
        defer { disk.heal() }
        let (_, watcher) = try await pushOnADiskFailingFromTheStart(registry, persistence)
        let shown = try await usersShown(by: watcher)
        try #require(shown == ["root", "p"], "the watcher's snapshot shows p, held")
        // While the disk fails, the catch-up waits for a write that succeeds: nothing reaches the watcher.
        await runRetryRounds(2, of: persistence)
        #expect(watcher.pendingCount == 0, "nothing is released while the disk fails")
        disk.heal()
        await runRetryRounds(1, of: persistence)
        // Dropped as changing nothing, the held events never reached it, and it showed p for good.
        #expect(watcher.pendingCount == 1, "one catch-up, the last take-back's")
        #expect(try await usersShown(by: watcher) == ["root"], "the watcher shown p is put right")
    }

    @Test(
        "A run of failed writes logs one error line, and its end one line with the count: the write that succeeds, the settle's after a close among them",
        arguments: [false, true]
    )
    func oneLogLinePerRunOfFailures(closing: Bool) async throws {
        let logs = InMemoryLogHandler()
        let (registry, persistence) = try makeRegistry(
            resumeExecutor: QueueTaskExecutor(),
            firstRewritePause: .seconds(3_600),
            logger: Logger(label: "test") { _ in logs }
        )
        defer { disk.heal() }
        let (session, _) = try await pushOnADiskFailingFromTheStart(registry, persistence)
        let takeBacks = session.takeBacks
        await runRetryRounds(3, of: persistence)
        let takenBack = { logs.entries.filter { $0.message.description.hasPrefix("Cannot save a session's state") } }
        // Before, each take-back logged its line.
        #expect(takenBack().count == 1, "one line for the run: \(takenBack().count)")
        #expect(takenBack().first?.level == .error)
        let ended = { logs.entries.filter { $0.message.description.hasPrefix("Saved a session's state again") } }
        if closing {
            registry.close("main")
            // Kept for the settle, whose writes may still land: before, the close logged the run's end at `warning`
            // level, before its last write was tried.
            #expect(!logs.entries.contains { $0.message.description.hasPrefix("Closed a session while") })
            disk.heal()
            // The settle's write lands, and ends the run; no settle outlives the test.
            await registry.settleClosedSessions()
        } else {
            disk.heal()
            await runRetryRounds(1, of: persistence)
        }
        let ends = ended()
        #expect(ends.count == 1, "the run's end: \(logs.entries.map(\.message.description))")
        #expect(ends.first?.level == .notice)
        // Every take-back of the run, those of the retry's rounds among them (the first is the one that took p back).
        #expect(ends.first?.metadata["navhost.takeBacks"] == "\(session.takeBacks - takeBacks + 2)")
        // The last take-back's error, the first line saying the first's.
        #expect(ends.first?.metadata["error"]?.description.contains("Input/output error") == true)
        #expect(takenBack().count == 1, "no line more")
    }
}
