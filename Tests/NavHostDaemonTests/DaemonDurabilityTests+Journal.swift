import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// A write is a line added to the session's journal (docs/durability.md): a kill -9 during its write leaves the
// line cut short. The line's change was never acknowledged, so the session comes back as of the line before it, and
// nothing about that is an error.

extension DaemonDurabilityTests {
    @Test("A journal line cut short by a crash: the session comes back as of the line before, and nothing is corrupt")
    func tornJournalLine() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        // `home.main` keeps no state: each push is one line, and the last line is the last push.
        var stacks: [[String]] = []
        for _ in 0..<3 {
            try await nav.call("Navigate", ["route": "home.main"])
            stacks.append(try await nav.routes())
        }
        try await daemon.crash()

        let sessions = "\(daemon.stateDirectory)/sessions"
        let journal = URL(fileURLWithPath: "\(sessions)/main.journal")
        // The journal's lines, then zeros to the end of its file.
        let file = try Data(contentsOf: journal)
        let used = file[..<((file.lastIndex { $0 != 0 } ?? -1) + 1)]
        #expect(file[used.endIndex...].allSatisfy { $0 == 0 })
        let lines = used.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(lines.count >= 3 && lines.last?.isEmpty == true, "one line per push, each ended: \(lines.count - 1)")
        // The last line as a crash in the middle of its write leaves it: its first half, no line feed, the zeros
        // after it as they were.
        let lastLine = lines[lines.count - 2]
        let kept = lines.dropLast(2).flatMap { Array($0) + [UInt8(ascii: "\n")] } + lastLine.prefix(lastLine.count / 2)
        try Data(kept + [UInt8](repeating: 0, count: file.count - kept.count)).write(to: journal)

        try await daemon.restart()
        let ready = try #require(daemon.notifications.first { $0.contains("READY=1") })
        #expect(!ready.contains("corrupt"), "a torn last line is not damage: \(ready)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sessions).allSatisfy { !$0.contains(".corrupt-") })
        let restarted = try await NavigationClient.connect(to: daemon)
        #expect(try await restarted.routes() == stacks[1], "the stack of the line before the torn one")

        // And what is acknowledged from here on survives kill -9 again.
        try await restarted.call("Navigate", ["route": "settings.main"])
        let acknowledged = try await restarted.routes()
        try await daemon.crash()
        try await daemon.restart()
        #expect(try await NavigationClient.connect(to: daemon).routes() == acknowledged)
        #expect(try await daemon.terminate() == 0)
    }

    @Test("A journal moved away while the daemon runs: the next acknowledged change still survives kill -9")
    func journalMovedAway() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        for _ in 0..<2 { try await nav.call("Navigate", ["route": "home.main"]) }
        let journal = "\(daemon.stateDirectory)/sessions/main.journal"
        try FileManager.default.moveItem(atPath: journal, toPath: journal + ".moved")

        // Written into a new journal after zeros, this change would not be read back; it becomes a snapshot.
        try await nav.call("Navigate", ["route": "settings.main"])
        let acknowledged = try await nav.routes()
        try await daemon.crash()
        try await daemon.restart()
        #expect(try await NavigationClient.connect(to: daemon).routes() == acknowledged)
        #expect(try await daemon.terminate() == 0)
    }
}
