import Foundation
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Testing

/// A write that fails may have reached the disk all the same: what a caller was answered `StorageFailed` for must not
/// be what a restart reads. Through a registry and its persistence, over a disk double that fails as a disk can (``FaultyDiskWrites``):
/// a tmpfs cannot fail an `fsync` after the bytes landed.
@MainActor
@Suite("A failed write that reached the disk")
struct FailedWriteOnDiskTests {
    let directory: String
    let disk = FaultyDiskWrites()
    let main = SessionConfiguration(root: RouteRequest(id: "profile.user", parameters: ["userID": "root"]))

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-faulty-\(UUID())").path
    }

    func makeRegistry(writes: (any SessionFileWrites)? = nil) throws -> (SessionRegistry, SessionPersistence) {
        let persistence = SessionPersistence(directory: directory, writes: writes ?? disk)
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: persistence,
            logger: Logger(label: "test")
        )
        return (registry, persistence)
    }

    static func user(_ id: String) -> RouteRequest {
        RouteRequest(id: "profile.user", parameters: ["userID": .string(id)])
    }

    /// The users of the stack the session's file holds, as a restart reads it.
    func usersOnDisk() throws -> [String] {
        guard case .record(let record) = try SessionStateFile(directory: directory, session: "main").load() else {
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
}
