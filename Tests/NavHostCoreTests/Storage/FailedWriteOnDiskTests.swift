import Foundation
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Testing

/// A write that fails may have reached the disk all the same, and a failed write answers every caller it covered:
/// what a caller was answered `StorageFailed` for must not be what a restart reads, and what it was answered done for
/// must be. Through a registry and its persistence, over a disk double that fails as a disk can (``FaultyDiskWrites``):
/// a tmpfs cannot fail an `fsync` after the bytes landed.
@MainActor
@Suite("A failed write that reached the disk, one that answered several callers, and an OpenSession's")
struct FailedWriteOnDiskTests {
    let directory: String
    let disk = FaultyDiskWrites()
    let main = SessionConfiguration(root: RouteRequest(id: "profile.user", parameters: ["userID": "root"]))

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-faulty-\(UUID())").path
    }

    /// A registry over a persistence that writes through `writes` (``disk`` by default); its retry after a failed
    /// write starts after `firstRewritePause` (50 ms, the daemon's); a caller that waited for a write resumes on
    /// `resumeExecutor` first. Its catalog holds `profile` (a ``ProfileFeature`` by default) and a ``DraftFeature``.
    func makeRegistry(
        writes: (any SessionFileWrites)? = nil,
        resumeExecutor: (any TaskExecutor)? = nil,
        firstRewritePause: Duration = .milliseconds(50),
        profile: any FeatureModule = ProfileFeature(),
        draft: DraftFeature = DraftFeature(),
        logger: Logger = Logger(label: "test")
    ) throws -> (SessionRegistry, SessionPersistence) {
        let persistence = SessionPersistence(
            directory: directory,
            writes: writes ?? disk,
            resumeExecutor: resumeExecutor,
            firstRewritePause: firstRewritePause
        )
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([profile, draft]),
            persistence: persistence,
            logger: logger
        )
        return (registry, persistence)
    }

    /// A registry that keeps a list of sessions opened over the wire, in `<directory>-list` (returned, for the caller
    /// to remove). A failed write's callers resume in the order the writer answers them, as in navhostd, and the retry
    /// waits an hour: an `OpenSession`'s own commit, first, finds the failed write still possibly on disk.
    func makeRegistryOpeningOverTheWire() throws -> (SessionRegistry, listFolder: String) {
        let listFolder = directory + "-list"
        try FileManager.default.createDirectory(atPath: listFolder, withIntermediateDirectories: true)
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: SessionPersistence(
                directory: directory,
                writes: disk,
                resumeExecutor: QueueTaskExecutor(),
                firstRewritePause: .seconds(3600)
            ),
            openedSessions: OpenedSessionsFile(directory: listFolder),
            logger: Logger(label: "test")
        )
        return (registry, listFolder)
    }

    static func user(_ id: String) -> RouteRequest {
        RouteRequest(id: "profile.user", parameters: ["userID": .string(id)])
    }

    /// The users of the stack the file of the session `name` holds, as a restart reads it.
    func usersOnDisk(of name: String = "main") throws -> [String] {
        guard case .record(let record) = try SessionStateFile(directory: directory, session: name).load() else {
            Issue.record("no record on disk")
            return []
        }
        // A long ID as its first letter and its length, so that a failure's message stays short.
        return record.stack.map { screen in
            let id = screen.parameters["userID"]?.stringValue ?? "?"
            return id.count > 16 ? "\(id.prefix(1))×\(id.count)" : id
        }
    }

    /// Commits the session's take-back, as the session's next call does, and waits for every write queued.
    func settle(_ registry: SessionRegistry, _ session: NavigationSession, _ persistence: SessionPersistence) async {
        for _ in 0..<3 { await Task.yield() }
        try? await registry.commit(session)
        await persistence.waitForQueuedWrites()
    }

    @Test("A journal line whose write and zeroing failed after it landed: the take-back's record is written over it")
    func journalLineThatLanded() async throws {
        let (registry, persistence) = try makeRegistry()
        let session = try registry.open(main)
        try await registry.commit(session)
        try session.navigate(to: Self.user("kept"))
        try await registry.commit(session)
        // A pop: its record differs from the one before it by its stack alone (a push takes a new screen number, which
        // a take-back keeps, so the take-back's record needed a write anyway). The line lands whole, its `fdatasync`
        // fails; the zeroing of it fails with nothing written.
        disk.failNext([.afterLanding, .beforeLanding])
        try session.pop()
        await #expect(throws: NavigationError.self) { try await registry.commit(session) }
        #expect(session.routeIDs.count == 2, "the pop was taken back")
        let failed = disk.log.filter { $0.hasSuffix("(afterLanding)") }
        #expect(failed.count == 1 && failed[0].hasPrefix("write main.journal at "), "a line failed: \(disk.log)")
        await settle(registry, session, persistence)
        // Before, the take-back's record counted as on disk already and was not written: the restart read the line.
        #expect(try usersOnDisk() == ["root", "kept"], "writes: \(disk.log)")
    }

    @Test("A snapshot renamed into place before its folder's fsync failed: the take-back's record is written over it")
    func snapshotThatLanded() async throws {
        let (registry, persistence) = try makeRegistry()
        let session = try registry.open(main)
        try await registry.commit(session)
        // A journal line longer than the journal's limit: the next write is a new snapshot.
        let big = String(repeating: "b", count: SessionStateFile.journalLimit + 1_000)
        try session.navigate(to: Self.user(big))
        try await registry.commit(session)
        // The snapshot is renamed into place, then its folder's `fsync` fails.
        disk.failNext([.afterLanding])
        try session.pop()
        await #expect(throws: NavigationError.self) { try await registry.commit(session) }
        #expect(session.routeIDs.count == 2, "the pop was taken back")
        #expect(disk.log.contains("replace main.json (afterLanding)"), "the failed write was a snapshot: \(disk.log)")
        await settle(registry, session, persistence)
        #expect(try usersOnDisk() == ["root", "b×\(big.count)"], "writes: \(disk.log)")
    }

    /// Records, for ``laterCallerTakesNothingBack()``, the answer of the change another client made once the first
    /// caller of the failed write had taken it back.
    @MainActor final class Other {
        var made = false
        var answer: Result<Void, any Error>?
        /// What the file held when the change was answered.
        var onDisk: [String] = []
        /// How many callers began: each queues its commit's record in the stretch that begins it.
        var callersBegun = 0
    }

    @Test("A failed write answering two callers is taken back once: a change made between them is answered as written")
    func laterCallerTakesNothingBack() async throws {
        let (registry, persistence) = try makeRegistry()
        let session = try registry.open(main)
        try await registry.commit(session)
        let other = Other()
        // The first failed caller to run makes another change, whose write is allowed then, before the next runs.
        let caller: @MainActor () async -> Bool = {
            other.callersBegun += 1
            do {
                try await registry.commit(session)
                return false
            } catch {
                guard !other.made else { return true }
                other.made = true
                let takeBacks = session.takeBacks
                _ = try? session.navigate(to: Self.user("other"))
                do {
                    try await registry.commit(session, takeBacks: takeBacks)
                    other.answer = .success(())
                } catch {
                    other.answer = .failure(error)
                }
                other.onDisk = (try? usersOnDisk()) ?? []
                return true
            }
        }
        // One write for both pushes: the first's is held while the second queues its record behind it.
        disk.holdNext()
        disk.failNext([.beforeLanding])
        try session.navigate(to: Self.user("p"))
        let first = Task { await caller() }
        try await waitUntilHolding()
        try session.navigate(to: Self.user("q"))
        let second = Task { await caller() }
        // The second caller's commit must be queued behind the held write before the write is let go: let go first,
        // the failure comes before that commit, which no failed write answers then. Awaited, not slept for (100 ms,
        // as it was: never short, as the main actor runs the second caller before the test's turn after a sleep, but
        // it read as a guess). The push's background save, a task of the main actor made before it, has run too.
        let deadline = ContinuousClock.now + .seconds(30)
        while other.callersBegun < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(persistence.callersWaiting(of: "main").queued > 0, "the second push's record is queued")
        disk.release()
        #expect(await first.value, "the first push's write failed")
        #expect(await second.value, "the second push's write failed")
        await persistence.waitForQueuedWrites()
        for _ in 0..<3 { await Task.yield() }
        await persistence.waitForQueuedWrites()
        let onDisk = try usersOnDisk()
        switch other.answer {
        case .success:
            #expect(other.onDisk == ["root", "other"], "answered done; writes: \(disk.log)")
            #expect(onDisk == ["root", "other"], "answered done; writes: \(disk.log)")
        case .failure(let error):
            // Before: the second caller's take-back took the other change back, after its write was queued; the
            // file held it when it was answered (a crash then brought it back), until the take-back's record.
            Issue.record("the other change was answered \(error); writes: \(disk.log)")
            #expect(!other.onDisk.contains("other"), "answered StorageFailed, and on disk: \(other.onDisk)")
        case nil:
            Issue.record("no caller made the other change")
        }
        #expect(session.routeIDs == ["profile.user", "profile.user"])
    }

    @Test("An OpenSession whose first record and the list without it fail: it answers the session a restart opens")
    func openSessionStillListed() async throws {
        // The list of opened sessions in a folder of its own, which the test takes away while the first record's
        // write is held.
        let listFolder = directory + "-list"
        try FileManager.default.createDirectory(atPath: listFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: listFolder + "-moved") }
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: SessionPersistence(directory: directory, writes: disk),
            openedSessions: OpenedSessionsFile(directory: listFolder),
            logger: Logger(label: "test")
        )
        disk.holdNext()
        disk.failNext([.beforeLanding])
        let opening = Task {
            try await registry.openDurably(
                OpenedSessionsFile.Entry(name: "kiosk", root: "profile.user", parameters: ["userID": "k"])
            )
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !disk.isHolding {
            guard ContinuousClock.now < deadline else {
                Issue.record("the first record's write was never held: \(await opening.result)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        // Listed; now the list cannot be written again: its folder is a file.
        try FileManager.default.moveItem(atPath: listFolder, toPath: listFolder + "-moved")
        #expect(FileManager.default.createFile(atPath: listFolder, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: listFolder) }
        disk.release()
        let answer = await opening.result
        let listed = try OpenedSessionsFile(directory: listFolder + "-moved").load().get().map(\.name)
        #expect(listed == ["kiosk"], "the list on disk still names it")
        // Before, the call answered StorageFailed, and a restart opened the session from the list.
        let session = try answer.get()
        #expect(try registry.session("kiosk") === session, "open, as a restart opens it")
        #expect(session.routeIDs == ["profile.user"], "at its root")
        // The screen's own change (its user loaded) may have written the session since.
        #expect(disk.log.first == "replace kiosk.json (beforeLanding)", "the first record failed: \(disk.log)")
    }

    @Test(
        "An OpenSession answered StorageFailed whose first record reached the disk leaves the record emptied: a session the configuration declares under the name later starts at its own root"
    )
    func refusedOpenLeavesItsRecordEmptied() async throws {
        let (registry, listFolder) = try makeRegistryOpeningOverTheWire()
        defer { try? FileManager.default.removeItem(atPath: listFolder) }
        disk.failNext([.afterLanding])
        let answer = await Task {
            try await registry.openDurably(
                OpenedSessionsFile.Entry(name: "kiosk", root: "profile.user", parameters: ["userID": "wire"])
            )
        }.result
        #expect(throws: NavigationError.self, "refused") { try answer.get() }
        #expect(try OpenedSessionsFile(directory: listFolder).load().get().isEmpty, "taken out of the list")
        await registry.waitForQueuedWrites()

        registry.declareConfiguredSessions(["kiosk"])
        let configured = try registry.open(SessionConfiguration(name: "kiosk", root: Self.user("conf")))
        // Before, the last write as it closed put the refused session's root on disk again, and it opened there.
        #expect(configured.snapshot.stack.map(\.route.parameters) == [["userID": "conf"]], "at its own root")
    }
}
