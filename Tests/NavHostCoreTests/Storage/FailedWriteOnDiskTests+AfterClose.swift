import Dispatch
import Foundation
import InMemoryLogging
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Synchronization
import Testing

// A write of a session that begins after the stop or a reload closed it (the background save of a change made just
// before) and fails after landing: the closed session is kept for the settle once that failure is seen
// (SessionRegistry.keepForTheSettle), and a reload that opens the name again waits for it.

extension FailedWriteOnDiskTests {
    /// A task executor whose jobs wait while it is held: a caller that resumes on it first (a failed write's) is kept
    /// from the main actor until it is let go.
    final class HoldableTaskExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "navhost.test.holdable-executor")
        private let enqueued = Mutex(0)

        /// How many jobs it was given so far.
        var jobs: Int { enqueued.withLock { $0 } }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            enqueued.withLock { $0 += 1 }
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }

        private let held = Mutex(false)

        /// Holds its jobs until ``letGo()``; once at a time.
        func hold() {
            held.withLock { held in
                guard !held else { return }
                held = true
                queue.suspend()
            }
        }

        /// Runs the jobs it held, and those it is given from now on.
        func letGo() {
            held.withLock { held in
                guard held else { return }
                held = false
                queue.resume()
            }
        }
    }

    /// Opens "main" at its root, durably, then pushes p, whose background save is held (``waitUntilHolding()``) once
    /// `close` closed the session (in the stretch of the push: nothing was written or failed at the close); the save
    /// lands and fails when the disk lets it go, and the zeroing of its line fails with nothing written; so does the
    /// next write, when `thenFailing` (the take-back's).
    func pushSavedAfterClose(
        _ registry: SessionRegistry,
        thenFailing: Bool = false,
        close: () -> Void
    ) async throws -> NavigationSession {
        let session = try registry.open(main)
        try await registry.commit(session)
        disk.holdNext()
        disk.failNext([.afterLanding, .beforeLanding] + (thenFailing ? [.beforeLanding] : []))
        try session.navigate(to: Self.user("p"))
        close()
        try await waitUntilHolding()
        return session
    }

    @Test(
        "A write that begins after the stop or a reload closed its session and fails: the settle writes over it",
        arguments: [false, true]
    )
    func failureAfterTheClose(daemonStopping: Bool) async throws {
        let logs = InMemoryLogHandler()
        let (registry, _) = try makeRegistry(
            firstRewritePause: .seconds(3_600),
            logger: Logger(label: "test") { _ in logs }
        )
        // The take-back's own write fails too: only a write after it takes p out of the file.
        let session = try await pushSavedAfterClose(registry, thenFailing: true) {
            if daemonStopping { registry.shutDown() } else { registry.close("main") }
        }
        disk.release()
        // Written once p is taken back: the take-back's record, which fails.
        try #require(try await waitUntilLogged("replace main.json (beforeLanding)"), "writes: \(disk.log)")
        await registry.settleClosedSessions()
        // p's failed write is taken back once, by its caller, which keeps the closed session for a settle and starts
        // it. Not counted by `takeBacks`: once the take-back's own write failed, the settle's round and that write's
        // caller both resume on the main actor, and a round that comes first takes the refused change back (it holds
        // the root, as the file did before p) before its last write, where the caller would find the root written and
        // take nothing back: two take-backs then, one of p, the second before a poll on the count may see the first.
        #expect(disk.log.contains("write main.journal at 0 (afterLanding)"), "p's line failed: \(disk.log)")
        let failuresTakenBack = logs.entries.filter { $0.message.description.hasPrefix("Cannot save") }
            .map { "\($0.metadata["error"] ?? "")" }
        #expect(
            failuresTakenBack.filter { $0.contains("main.journal") }.count == 1,
            "p's failure taken back once: \(failuresTakenBack)"
        )
        #expect(session.routeIDs.count == 1, "p taken back")
        // Before, the retry had stopped at the close and the session was not kept for the settle: the file kept p,
        // which the next start (or a reload that declares the name again) opened the session with.
        #expect(try usersOnDisk() == ["root"], "writes: \(disk.log)")
    }

    @Test("A reload opening a name before the caller of a write failed after the close took it back opens it without")
    func reloadOpensTheNameWithoutAFailureAfterTheClose() async throws {
        let executor = HoldableTaskExecutor()
        let (registry, persistence) = try makeRegistry(resumeExecutor: executor, firstRewritePause: .seconds(3_600))
        registry.openConfiguredSessions = { _ = try? registry.openOnceEarlierWritesLand(self.main) }
        let session = try await pushSavedAfterClose(registry) { registry.close("main") }
        _ = try registry.openOnceEarlierWritesLand(main)
        // The failed save's caller resumes on the held executor: it cannot take p back before the name opens.
        executor.hold()
        defer { executor.letGo() }
        disk.release()
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? registry.session()) == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        let reopened = try registry.session()
        await persistence.waitForQueuedWrites()
        // Before, the name opened once the write failed, from the file as it left it: the new session held p, which
        // its caller was about to take back.
        #expect(reopened !== session && reopened.routeIDs.count == 1, "opens without p: \(disk.log)")
        #expect(try usersOnDisk() == ["root"], "writes: \(disk.log)")
    }

    @Test("A pop whose write failed after the stop closed its session: the take-back builds no screen")
    func takeBackAfterTheStopBuildsNoScreen() async throws {
        let builds = ProfileBuilds()
        let (registry, _) = try makeRegistry(firstRewritePause: .seconds(3_600), profile: CountedProfileFeature(builds))
        // The pop's journal line is held until the stop closed the session.
        let (session, pop) = try await heldFailingPop(in: registry)
        registry.shutDown()
        let builtBeforeTheFailure = builds.users
        disk.release()
        await #expect(throws: NavigationError.self) { try await pop.value }
        await registry.settleClosedSessions()
        // Before, the take-back built kept's screen again in the closed session: a ViewModel made, its onAppear run,
        // and nothing would ever close it.
        #expect(builds.users == builtBeforeTheFailure, "no screen built after the stop")
        #expect(session.record.stack.map(\.id.rawValue) == ["s1", "s2"], "the pop taken back from the record")
        #expect(try usersOnDisk() == ["root", "kept"], "writes: \(disk.log)")
    }

    @Test(
        "A failed write its callers have not taken back as the stop or a reload closes its session: no screen is built",
        arguments: [true, false]
    )
    func takeBackAtTheCloseBuildsNoScreen(daemonStopping: Bool) async throws {
        let builds = ProfileBuilds()
        let (registry, persistence) = try makeRegistry(
            firstRewritePause: .seconds(3_600),
            profile: CountedProfileFeature(builds)
        )
        let (session, pop) = try await heldFailingPop(in: registry)
        let builtBeforeTheFailure = builds.users
        disk.release()
        // The main actor stays here, as when it is behind: the pop's caller cannot take it back before the close.
        let deadline = ContinuousClock.now + .seconds(30)
        while persistence.refusal(of: "main") == nil && ContinuousClock.now < deadline { usleep(100) }
        try #require(persistence.refusal(of: "main") != nil, "the pop's write failed: \(disk.log)")
        // The close's last write takes the refused pop back first.
        let takeBacks = session.takeBacks
        if daemonStopping { registry.shutDown() } else { registry.close("main") }
        #expect(session.takeBacks == takeBacks + 1, "the close's last write took the pop back")
        // Before, the take-back came before the session's close, which closed at once the screen it had built again.
        #expect(builds.users == builtBeforeTheFailure, "no screen built at the close")
        await #expect(throws: NavigationError.self) { try await pop.value }
        await registry.settleClosedSessions()
        #expect(builds.users == builtBeforeTheFailure, "no screen built after the close")
        #expect(try usersOnDisk() == ["root", "kept"], "writes: \(disk.log)")
    }

    @Test(
        "A closed screen's cancelled work changes its restorable state after the close took a refused pop back: the settle writes the stack taken back"
    )
    func takeBackAtTheCloseOutlastsAClosedScreensWork() async throws {
        let drafts = DraftFeature()
        let (registry, persistence) = try makeRegistry(firstRewritePause: .seconds(3_600), draft: drafts)
        let session = try registry.open(main)
        try await registry.commit(session)
        try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d"]))
        let editor = try session.screenID(of: nil)
        try session.navigate(to: Self.user("kept"))
        try await registry.commit(session)
        // An intent on the editor whose work goes on, cancelled, after the close, and sets the text once let go.
        let sending = Task { @MainActor in
            try await session.send(
                IntentMessage(name: "onTappedSaveAfterTheGate", arguments: ["text": "x"]),
                to: editor
            )
        }
        let delivered = { drafts.waitingRoom.deliveries.load(ordering: .relaxed) == 1 }
        var deadline = ContinuousClock.now + .seconds(30)
        while !delivered() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(delivered(), "the intent was delivered")
        // The pop's journal line lands and its fdatasync fails, the zeroing of it fails with nothing written, and so
        // does the catch-up the close's take-back queues.
        disk.holdNext()
        disk.failNext([.afterLanding, .beforeLanding, .beforeLanding])
        try session.pop()
        let pop = Task { @MainActor in try await registry.commit(session) }
        try await waitUntilHolding()
        disk.release()
        // The main actor stays here, as when it is behind: the pop's caller cannot take it back before the close.
        deadline = ContinuousClock.now + .seconds(30)
        while persistence.refusal(of: "main") == nil && ContinuousClock.now < deadline { usleep(100) }
        try #require(persistence.refusal(of: "main") != nil, "the pop's write failed: \(disk.log)")
        // The stop's last write takes the pop back in the closed session: its record holds kept, its screens do not.
        let takeBacks = session.takeBacks
        registry.shutDown()
        #expect(session.takeBacks == takeBacks + 1, "the close took the pop back, not its caller in an open session")
        await #expect(throws: NavigationError.self) { try await pop.value }
        let failedBeforeLanding = { self.disk.log.filter { $0.hasSuffix("(beforeLanding)") }.count >= 2 }
        deadline = ContinuousClock.now + .seconds(30)
        while !failedBeforeLanding() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(failedBeforeLanding(), "the catch-up failed: \(disk.log)")
        // The editor's work sets its text: its restorable state moves on, in a session closed.
        drafts.waitingRoom.gate.open()
        let changed = { drafts.waitingRoom.changesAfterTheGate.load(ordering: .relaxed) == 1 }
        deadline = ContinuousClock.now + .seconds(30)
        while !changed() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(changed(), "the closed editor's work set its text")
        _ = try? await sending.value
        // Before, the session's record was made again from the screens it still held, without kept: the settle wrote
        // the pop its client was answered `StorageFailed` for.
        #expect(session.record.stack.count == 3, "the stack taken back stands")
        #expect(session.routeIDs.count == 2, "kept was not built again: the record is the pin, not the screens")
        await registry.settleClosedSessions()
        #expect(try usersOnDisk() == ["root", "?", "kept"], "writes: \(disk.log)")
    }

    @Test("Navigation from outside a screen task in a closed session is dropped: no screen is built")
    func navigationInAClosedSessionBuildsNoScreen() async throws {
        let builds = ProfileBuilds()
        let (registry, _) = try makeRegistry(profile: CountedProfileFeature(builds))
        let session = try registry.open(main)
        try await registry.commit(session)
        let root = try session.screenID(of: nil)
        registry.shutDown()
        let builtBeforeTheNavigation = builds.users
        // As a detached task's or a queue's callback would, with no screen task to tell it is a closed screen's work.
        // Before, the closed screen was still on the closed session's stack, and the push built a screen there.
        #expect(!session.perform(.navigate(Self.user("late")), from: root), "navigation dropped")
        #expect(builds.users == builtBeforeTheNavigation, "no screen built")
        #expect(session.routeIDs.count == 1)
        await registry.settleClosedSessions()
    }

    /// The writes of session "main" in the disk's log after its first `from` entries.
    /// `main` at `[root, kept]`, both committed, and the commit of a pop of `kept` whose journal line is held
    /// (``waitUntilHolding(afterWrites:)`` has seen it): let go, it lands and its fdatasync fails, and the zeroing of
    /// it fails with nothing written, so the file holds the pop.
    func heldFailingPop(in registry: SessionRegistry) async throws -> (NavigationSession, Task<Void, any Error>) {
        let session = try registry.open(main)
        try await registry.commit(session)
        try session.navigate(to: Self.user("kept"))
        try await registry.commit(session)
        disk.holdNext()
        disk.failNext([.afterLanding, .beforeLanding])
        try session.pop()
        let pop = Task { @MainActor in try await registry.commit(session) }
        try await waitUntilHolding()
        return (session, pop)
    }

    func writesOfMain(after from: Int) -> Int {
        disk.log.dropFirst(from).filter { $0.contains(" main.") }.count
    }

    /// Waits until the disk's log holds `count` writes of "main" after its first `from` entries, or 30 s went by.
    func waitUntilMainWritten(_ count: Int, after from: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while writesOfMain(after: from) < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        try #require(writesOfMain(after: from) == count, "writes: \(disk.log)")
    }

    @Test(
        "A caller's write that fails after the settle's last write of a session kept: one write more, and the settle ends",
        arguments: [true, false]
    )
    func callersFailureAfterTheSettlesLastWrite(diskHeals: Bool) async throws {
        let logs = InMemoryLogHandler()
        let (registry, persistence, session) = try await refusedPopLeftOnBrokenDisk(
            firstRewritePause: .seconds(3_600),
            logger: Logger(label: "test") { _ in logs }
        )
        // A reload closes the session, its file holding the refused pop: kept for the settle, it is written at once,
        // then 5 times more (lastWriteRounds); the disk fails them all but the last, which is held.
        let closing = disk.log.count
        disk.holdTheWrite(6, toFilesOf: "main")
        registry.close("main")
        try await waitUntilHolding()
        try #require(writesOfMain(after: closing) == 5, "writes: \(disk.log)")
        disk.heal()
        // A call of the session still under way pushes x: its background save waits behind the settle's last write.
        try session.navigate(to: Self.user("x"))
        try await waitUntilQueued(persistence, callers: 1, queuedOnly: true)
        disk.holdNext()
        disk.release()
        // The settle's last write lands; x's is held.
        try await waitUntilMainWritten(6, after: closing)
        try await waitUntilHolding()
        // The call pops x while x's write is under way: its save waits behind it, and x's caller finds the stack last
        // written, and takes nothing back (it makes no change); as its failed write tried another stack, it writes the
        // session's record once over it (since session 42).
        try session.pop()
        try await waitUntilQueued(persistence, callers: 1, queuedOnly: true)
        // x's line lands and its fdatasync fails; its zeroing fails with nothing written: the file holds x.
        disk.failNext([.afterLanding, .beforeLanding])
        if !diskHeals { disk.breakDown(.beforeLanding) }
        disk.release()
        let settle = Task { @MainActor in await registry.settleClosedSessions() }
        #expect(await ends(settle), "the settle ended: \(disk.log)")
        let gaveUp = logs.entries.contains { $0.message.description.hasPrefix("Gave up") }
        if diskHeals {
            // Before, the settle had written the session its 6 times: it gave it up, and the file kept x, which the
            // next start (or a reload that declares the name again) opened the session with.
            #expect(try usersOnDisk() == ["root", "kept"], "writes: \(disk.log)")
        } else {
            // On a disk that keeps failing the settle gives up after that one write more (x's line and its zeroing,
            // and the record x's caller writes over them, are the three before it).
            #expect(gaveUp, "writes: \(disk.log)")
            #expect(writesOfMain(after: closing) == 6 + 2 + 1 + 1, "writes: \(disk.log)")
        }
    }

    @Test(
        "A fresh session on a disk failing from its first write, closed by the stop or a reload: the settle ends",
        arguments: [true, false]
    )
    func settleOfASessionNeverWrittenEnds(daemonStopping: Bool) async throws {
        let (registry, _) = try makeRegistry(firstRewritePause: .seconds(3_600))
        // Its first record lands and fails: the file may hold it, and the persistence holds no record of it written.
        disk.breakDown(.afterLanding)
        // Healed, the disk takes the next save, and the take-backs below stop.
        defer { disk.heal() }
        let session = try registry.open(main)
        await #expect(throws: NavigationError.self) { try await registry.commit(session) }
        // A push, whose background save fails: with no stack written to find, its take-back takes p back and records
        // a change, whose save fails in turn, and so on, each take-back recording one though it changes nothing.
        try session.navigate(to: Self.user("p"))
        if daemonStopping { registry.shutDown() } else { registry.close("main") }
        // The take-backs go on after the close while the disk fails, each failure its caller's. Before, each gave the
        // session a write more in the settle, or kept it again once given up: the stop's settle did not end.
        let settle = Task { @MainActor in await registry.settleClosedSessions() }
        #expect(await ends(settle), "the settle ended: \(disk.log.suffix(10))")
    }
}

/// The users whose profile screens a ``CountedProfileFeature`` built, in the order it built them.
private final class ProfileBuilds: Sendable {
    private let built = Mutex<[String]>([])

    var users: [String] { built.withLock { $0 } }

    func note(_ user: String) { built.withLock { $0.append(user) } }
}

/// ``ProfileFeature``'s route, noting in a ``ProfileBuilds`` every screen it builds.
private final class CountedProfileFeature: FeatureModule {
    let name = "Profile"
    let screens = [ScreenDescriptor(route: "profile.user", parameters: ["userID"], viewModel: ProfileViewModel.self)]
    private let builds: ProfileBuilds

    init(_ builds: ProfileBuilds) { self.builds = builds }

    @MainActor func makeCoordinator(services: HostServices) throws -> any FeatureCoordinator {
        CountedProfileCoordinator(builds: builds)
    }
}

/// ``ProfileCoordinator``, noting every ViewModel it makes.
@MainActor
private final class CountedProfileCoordinator: Coordinator {
    let builds: ProfileBuilds

    init(builds: ProfileBuilds) { self.builds = builds }

    func makeViewModel(for route: ProfileRoute, router: Router<ProfileRoute>) -> any ViewModel {
        switch route {
        case .user(let userID):
            builds.note(userID)
            return ProfileViewModel(userID: userID)
        }
    }
}
