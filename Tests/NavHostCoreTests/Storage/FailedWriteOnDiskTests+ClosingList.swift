import Foundation
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import Testing

// A CloseSession whose list without the session was renamed into place before its folder's `fsync` failed
// (FileAccessError.mayHaveReplaced): its answer says what a restart finds.

extension FailedWriteOnDiskTests {
    /// A registry whose list of opened sessions is written through `listDisk`, with "kiosk" opened over the wire.
    func registryWithKiosk(listDisk: FaultyDiskWrites) async throws -> (SessionRegistry, OpenedSessionsFile) {
        let list = OpenedSessionsFile(directory: directory, writes: listDisk)
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: SessionPersistence(directory: directory, writes: disk),
            openedSessions: list,
            logger: Logger(label: "test")
        )
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
