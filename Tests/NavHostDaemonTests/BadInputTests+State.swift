import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// A way to damage a session's state file between two runs of the daemon.
struct StateDamage: Sendable, CustomTestStringConvertible {
    let name: String
    let damage: @Sendable ([UInt8]) -> [UInt8]

    var testDescription: String { name }

    static let all = [
        StateDamage(name: "not JSON") { _ in Array("\u{0}\u{1}garbage, not a session\n".utf8) },
        StateDamage(name: "cut short") { bytes in Array(bytes.prefix(bytes.count / 2)) },
        StateDamage(name: "checksum does not match") { bytes in
            // Same shape, one byte of the record changed: only the checksum can tell.
            let text = String(decoding: bytes, as: UTF8.self)
            return Array(text.replacingOccurrences(of: #""route":"home.main""#, with: #""route":"home.mail""#).utf8)
        },
    ]
}

@Suite("Bad input: a corrupt state file")
struct BadInputStateTests {
    @Test(
        "The daemon starts the session fresh, keeps the damaged file aside, says so, and keeps what it acknowledges next",
        arguments: StateDamage.all
    )
    func corruptStateFile(damage: StateDamage) async throws {
        let daemon = try await DaemonProcess.start()
        let first = try await Witness.connect(to: daemon, session: "main")
        try await first.confirm()
        #expect(try await daemon.terminate() == 0)

        let sessions = "\(daemon.stateDirectory)/sessions"
        let files = try FileManager.default.contentsOfDirectory(atPath: sessions).filter { $0.hasSuffix(".json") }
        let file = "\(sessions)/\(try #require(files.first, "the session was saved"))"
        let saved = try Data(contentsOf: URL(fileURLWithPath: file))
        let damaged = damage.damage(Array(saved))
        #expect(damaged != Array(saved))
        try Data(damaged).write(to: URL(fileURLWithPath: file))

        try await daemon.restart()
        let ready = try #require(daemon.notifications.first { $0.contains("READY=1") })
        #expect(ready.contains("session main: saved state corrupt, started fresh"), "\(ready)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: sessions).filter { $0.contains(".corrupt-") }
        #expect(
            kept.filter { $0.hasPrefix("main.json.") }.count == 1,
            "the damaged file is kept for the operator: \(kept)"
        )
        #expect(
            kept.allSatisfy { $0.hasPrefix("main.json.") || $0.hasPrefix("main.journal.") },
            "only the snapshot and its journal are moved aside: \(kept)"
        )

        // A fresh session, and from here on nothing acknowledged is lost, even to kill -9.
        let second = try await Witness.connect(to: daemon, session: "main")
        #expect(second.acknowledgedStack == ["home.main", "home.main"])
        try await daemon.crash()
        try await daemon.restart()
        let third = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let stack = try await third.call("io.navhost.Navigation.Stack")
        let routes = stack["snapshot"]?["stack"]?.arrayValue?.compactMap { $0["route"]?.stringValue }
        #expect(routes == second.acknowledgedStack)
        try await third.close()
        #expect(try await daemon.terminate() == 0)
    }
}
