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
}
