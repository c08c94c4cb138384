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
        let (output, errors) = ("\(folder)/follow.out", "\(folder)/follow.err")
        for file in [output, errors] { FileManager.default.createFile(atPath: file, contents: nil) }
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        follower.arguments = [Self.script, "--socket", daemon.socketPath, "follow"]
        follower.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        follower.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try follower.run()
        defer {
            follower.terminate()
            follower.waitUntilExit()
        }
        // What it printed, and what it said on standard error (a traceback) when it did not.
        func lines() -> [String] {
            let printed = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            return printed.map(String.init) + (said.isEmpty ? [] : ["stderr: \(said)"])
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
        try await daemon.terminate()
    }
}
