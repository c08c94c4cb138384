import Foundation
import IntegrationHarness
import Testing

/// The Python front end of `examples/python-frontend`, which docs/front-ends.md walks through, against the real
/// daemon: what the page shows works as shown.
@Suite("The Python front-end example against the daemon")
struct FrontEndExampleTests {
    static let script = "\(TestPaths.packageRoot)/examples/python-frontend/navhost_frontend.py"

    @Test("tour: calls, typed errors, and a mirror kept from Watch events that equals the daemon's Stack")
    func tour() async throws {
        let daemon = try await DaemonProcess.start()
        let tour = try await ChildProcess.run("/usr/bin/python3", [Self.script, "--socket", daemon.socketPath, "tour"])

        #expect(tour.status == 0, "\(tour.errors)")
        #expect(tour.output.hasSuffix(": home.main products.list; filter lamp\n"), "\(tour.output)")
        try await daemon.terminate()
    }

    @Test("follow: one line per revision, and it goes on after the daemon stops and starts again")
    func followAcrossARestart() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/follow.out"
        // Started by the harness, not Foundation's Process: with no signal blocked, so SIGTERM ends it, and waited for
        // off the cooperative pool (a follower that outlived its test once held a pool thread in `waitUntilExit` for
        // the 60 s it took to give up on its own). If the test ends early, the process is killed and reaped.
        let follower = try SpawnedProcess(
            "/usr/bin/python3",
            [Self.script, "--socket", daemon.socketPath, "follow"],
            output: .file(output)
        )
        // What it printed, with what it said on standard error (a traceback) when it did not.
        func lines() -> [String] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        func waitForLine(ending suffix: String) async throws -> Bool {
            try await pollUntil { lines().contains { $0.hasSuffix(suffix) } }
        }

        #expect(try await waitForLine(ending: ": home.main"), "\(lines())")
        try await nav.call("Navigate", ["route": "products.list"])
        #expect(try await waitForLine(ending: ": home.main products.list"), "\(lines())")
        #expect(try await daemon.terminate() == 0)
        try await daemon.restart()
        let again = try await NavigationClient.connect(to: daemon)
        try await again.call("Navigate", ["route": "settings.main"])

        #expect(try await waitForLine(ending: ": home.main products.list settings.main"), "\(lines())")
        #expect(follower.isRunning, "it follows on")
        follower.send(SIGTERM)
        let ended = try await withTimeout(.seconds(20), "the follower to end on SIGTERM") {
            await follower.waitForExit()
        }
        #expect(ended == 128 + SIGTERM, "\(lines())")
        try await daemon.terminate()
    }
}
