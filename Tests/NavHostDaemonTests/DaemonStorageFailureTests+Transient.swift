import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// A disk that fails for a while and comes back: what a call answered with an error changed must not reach the disk
// later, nor after a kill -9; and what the daemon gave out while the disk refused stays true after a restart.

extension DaemonStorageFailureTests {
    @Test("A journal's first line cut short by a full disk: StorageFailed, and after kill -9 the push is not there")
    func firstJournalLineOnFullDisk() async throws {
        let (daemon, disk, nav) = try await Self.daemonOnTinyDisk()
        defer { disk.unmount() }
        // A session's first record is a snapshot; its second write is the first line of a new journal, with the
        // zeros that make the file 72 KiB long: two pages of room take the line, not the zeros.
        try await nav.call("OpenSession", ["name": "fresh", "root": "home.main"])
        try await disk.fill()
        try await disk.leave(kibibytes: 8)
        let failure = try await Self.failure(
            of: await nav.call("Navigate", ["session": "fresh", "route": "settings.main"])
        )
        #expect(failure?.name == "io.navhost.Navigation.StorageFailed", "\(String(describing: failure))")
        #expect(try await nav.routes(session: "fresh") == ["home.main"], "the push was taken back")
        try await daemon.crash()
        try disk.free()
        try await daemon.restart()
        let restarted = try await NavigationClient.connect(to: daemon)
        // Before, the line was in the file, whole, zeros missing after it: the restart read the refused push.
        #expect(try await restarted.routes(session: "fresh") == ["home.main"], "the refused push is not on disk")
        #expect(try await daemon.terminate() == 0)
    }

    @Test("Revisions given out while the disk refuses the revision reservation are not given out again after kill -9")
    func revisionsBeyondTheReservation() async throws {
        let state = try TestPaths.temporaryDirectory() + "/state"
        let disk = try await TinyFileSystem(at: "\(state)/sessions")
        defer { disk.unmount() }
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            stateDirectory: state,
            sessions: ["main=faulty.main"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        let watch = WatchRecorder(try await NavigationClient.connect(to: daemon).watch())
        _ = try await watch.next()
        // Each `onTappedCount` changes the ViewModel's count, which is not kept: a revision, and nothing to write but
        // the revision reservation, once per 1,024 revisions (the record reserves the block after its own).
        try await disk.remount(readOnly: true)
        var highest: Int64 = 0
        var refused = 0
        for _ in 0..<2_100 {
            do {
                let reply = try await nav.call("Send", ["intent": "onTappedCount"])
                highest = max(highest, reply.revision ?? 0)
            } catch let error as VarlinkError {
                #expect(error.name == "io.navhost.Navigation.StorageFailed", "\(error)")
                refused += 1
            }
        }
        let before = try await nav.snapshot()
        try await daemon.crash()
        let heard =
            watch.all.compactMap { ($0["event"]?["revision"] ?? $0["snapshot"]?["revision"])?.intValue }.max() ?? 0
        print("revisions on a read-only disk: highest answered \(highest), heard \(heard), \(refused) refused")
        try await disk.remount(readOnly: false)
        try await daemon.restart()
        let restarted = try await NavigationClient.connect(to: daemon)
        let next = try await restarted.call("Send", ["intent": "onTappedCount"])
        // Before, the highest was 2,100, the restart started at the 2,048 the disk held, and gave 2,049 again.
        #expect((next.revision ?? 0) > highest, "answered \(highest) before the crash, \(next) after; \(before)")
        #expect((next.revision ?? 0) > heard, "a watcher heard \(heard) before the crash, \(next) after")
        #expect(try await daemon.terminate() == 0)
    }
}
