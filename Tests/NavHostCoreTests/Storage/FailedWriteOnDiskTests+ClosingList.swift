import Foundation
import Glibc
import Logging
import NavHostKit
import NavHostStorage
import NavHostWire
import Testing

@testable import NavHostCore

// A CloseSession whose list without the session was renamed into place before its folder's `fsync` failed
// (FileAccessError.mayHaveReplaced): its answer says what a restart finds.

extension FailedWriteOnDiskTests {
    /// A registry whose list of opened sessions is written through `listDisk`, and its sessions through ``disk``.
    func registryListing(through listDisk: FaultyDiskWrites) throws -> (SessionRegistry, OpenedSessionsFile) {
        let list = OpenedSessionsFile(directory: directory, writes: listDisk)
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: SessionPersistence(directory: directory, writes: disk),
            openedSessions: list,
            logger: Logger(label: "test")
        )
        return (registry, list)
    }

    /// ``registryListing(through:)``, with "kiosk" opened over the wire.
    func registryWithKiosk(listDisk: FaultyDiskWrites) async throws -> (SessionRegistry, OpenedSessionsFile) {
        let (registry, list) = try registryListing(through: listDisk)
        try await registry.openDurably(
            OpenedSessionsFile.Entry(name: "kiosk", root: "profile.user", parameters: ["userID": "k"])
        )
        return (registry, list)
    }

    @Test("A CloseSession whose list without it may be in place: the list with it is written again, and it stays open")
    func closeSessionListPutBack() async throws {
        let listDisk = FaultyDiskWrites()
        let (registry, list) = try await registryWithKiosk(listDisk: listDisk)
        listDisk.failNext([.afterLanding])
        await #expect(throws: NavigationError.self) { try await registry.closeDurably("kiosk") }
        #expect((try? registry.session("kiosk")) != nil, "answered StorageFailed: it stays open")
        // Before, the list without it stayed in place, and a restart did not open the session answered open.
        #expect(try list.load().get().map(\.name) == ["kiosk"], "the list a restart reads names it: \(listDisk.log)")
        let lastTwo = ["replace opened-sessions.json (afterLanding)", "replace opened-sessions.json"]
        #expect(Array(listDisk.log.suffix(2)) == lastTwo, "the list with it written again")
    }

    @Test("A CloseSession whose list without it is in place and cannot be put back: it closes, as a restart finds it")
    func closeSessionListLeftWithout() async throws {
        let listDisk = FaultyDiskWrites()
        let (registry, list) = try await registryWithKiosk(listDisk: listDisk)
        listDisk.failNext([.afterLanding, .beforeLanding])
        let error = await #expect(throws: NavigationError.self) { try await registry.closeDurably("kiosk") }
        #expect(error?.message.contains("as a restart finds it") == true, "\(String(describing: error))")
        #expect(try list.load().get().map(\.name) == [], "the list a restart reads leaves it out: \(listDisk.log)")
        // Before, it answered StorageFailed ("it stays open") and kept it open: a restart did not open it.
        #expect((try? registry.session("kiosk")) == nil, "closed, as a restart finds it")
        #expect(registry.opened["kiosk"] == nil)
        // Its record was emptied, as a CloseSession that succeeds empties it.
        guard case .record(let record) = try SessionStateFile(directory: directory, session: "kiosk").load() else {
            Issue.record("no record of kiosk")
            return
        }
        #expect(record.stack.isEmpty)
    }

    @Test("A put-back of the list that failed leaves it without the session unless it may have replaced it, any error")
    func putBackFailureLeavesTheList() {
        var renamed = FileAccessError.system("fsync", path: directory, errno: EIO)
        renamed.mayHaveReplaced = true
        #expect(!SessionRegistry.leavesTheListInPlace(renamed), "renamed into place: the list with it may be read")
        let notWritten = FileAccessError.system("write", path: directory, errno: ENOSPC)
        #expect(SessionRegistry.leavesTheListInPlace(notWritten))
        // The list's writes through the disk throw FileAccessError alone; another error (its encoding's) cannot be made
        // to come from a registry's test. Before b694b40 it counted as the list put back, and the call
        // answered that the session stays open while the list a restart reads left it out.
        #expect(SessionRegistry.leavesTheListInPlace(CancellationError()), "another error says nothing of a rename")
    }

    @Test(
        "A CloseSession whose list write fails while a reload declares the name: the list is not put back with it",
        arguments: [FaultyDiskWrites.Fault.afterLanding, .beforeLanding]
    )
    func closeSessionListDeclaredMeanwhile(fault: FaultyDiskWrites.Fault) async throws {
        let listDisk = FaultyDiskWrites()
        let (registry, list) = try await registryWithKiosk(listDisk: listDisk)
        // The list without it is held, then renamed into place with its folder's fsync failing, or not written.
        listDisk.holdNext()
        listDisk.failNext([fault])
        let closing = Task { try await registry.closeDurably("kiosk") }
        let deadline = ContinuousClock.now + .seconds(30)
        while !listDisk.isHolding && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(listDisk.isHolding, "the list without kiosk is held")
        // A reload (SIGHUP) declares kiosk meanwhile: the session is the configuration's now.
        registry.declareConfiguredSessions(["kiosk"])
        listDisk.release()
        let error = await #expect(throws: NavigationError.self) { try await closing.value }
        #expect(error?.code == .sessionConfigured, "\(String(describing: error))")
        // The list without it, written again by the call: the reload found no entry to take out, and wrote none. (Before,
        // a list not written at all stayed on disk with the session.)
        while (registry.opened["kiosk"] != nil || (try? list.load().get().map(\.name)) != [])
            && ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        // Before, the call put the entry back and wrote the list with it: a restart opened the configuration's
        // session as one opened over the wire, and CloseSession could close it.
        #expect(registry.opened["kiosk"] == nil, "the configuration's: \(listDisk.log)")
        #expect(try list.load().get().map(\.name) == [], "the list a restart reads leaves it out: \(listDisk.log)")
        #expect((try? registry.session("kiosk")) != nil, "open, as the configuration's")
    }
}

// MARK: A replay's claim on its session

extension FailedWriteOnDiskTests {
    /// A recording of a session at the root user, then pushing "a" and "b": two calls for a replay to make.
    static func recordingOfTwoPushes() async throws -> SessionRecording {
        let recorder = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            logger: .silent
        )
        let session = try recorder.open(SessionConfiguration(root: user("root")))
        defer { recorder.close(session.name) }
        try await session.handle(.navigate(user("a")))
        try await session.handle(.navigate(user("b")))
        return session.recording(plugins: [])
    }

    @Test("A CloseSession answered StorageFailed during a replay leaves the session the replay's: the replay closes it")
    func refusedCloseLeavesTheReplaysClaim() async throws {
        let recording = try await Self.recordingOfTwoPushes()
        let listDisk = FaultyDiskWrites()
        let (registry, list) = try registryListing(through: listDisk)
        // The replay's first record (its OpenSession's) is held, then the record of its first call: the replay waits
        // there, its session open and claimed, while a client closes it.
        disk.holdNext()
        let replaying = Task { try await registry.replay(recording, as: "replayed") }
        try await waitUntilHolding()
        disk.holdNext()
        disk.release()
        let deadline = ContinuousClock.now + .seconds(30)
        while !(disk.log.count == 1 && disk.isHolding) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        try #require(disk.log.count == 1 && disk.isHolding, "the first call's record is held: \(disk.log)")
        // The list without the session cannot be written (nothing of it lands): the call answers StorageFailed, and
        // the session stays open.
        listDisk.failNext([.beforeLanding])
        let error = await #expect(throws: NavigationError.self) { try await registry.closeDurably("replayed") }
        #expect(error?.code == .storageFailed, "\(String(describing: error))")
        #expect((try? registry.session("replayed")) != nil, "answered StorageFailed: it stays open")
        disk.release()
        let report = try await replaying.value
        #expect(!report.leftOpen, "the replay answers its session closed")
        // Before (the claim ended before the list's write), the replay took the session for a client's, closed nothing
        // at its end, and answered it closed: it stayed open, and listed, so a restart opened it again.
        #expect((try? registry.session("replayed")) == nil, "the replay closed its session: \(listDisk.log)")
        #expect(try list.load().get().map(\.name) == [], "the list a restart reads leaves it out: \(listDisk.log)")
    }
}
