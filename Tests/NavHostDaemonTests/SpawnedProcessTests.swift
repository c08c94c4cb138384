import Foundation
import IntegrationHarness
import Testing

/// What a program the tests start by hand (``SpawnedProcess`` and ``ChildProcess``, through ``PosixSpawn``) inherits
/// from the test process.
@Suite("Programs the tests start")
struct SpawnedProcessTests {
    @Test("A program starts with no signal blocked or ignored, as systemd or a shell would start it")
    func startsWithDefaultSignals() async throws {
        // This task runs on a thread of the cooperative pool, which blocks most signals (SIGTERM and SIGINT among
        // them): a child that inherited the mask would stay deaf to them. SIGPIPE is ignored here as NIO ignores it in
        // the test process once a socket opens (which this test may run before): a child must get it back at its
        // default.
        signal(SIGPIPE, SIG_IGN)
        let child = try SpawnedProcess("/bin/grep", ["-E", "^Sig(Blk|Ign):", "/proc/self/status"])
        var lines: [String] = []
        while let line = await child.readOutputLine() { lines.append(line) }
        #expect(await child.waitForExit() == 0)
        Self.expectDefaultSignals(lines)
    }

    @Test("A program run to its end starts so too, in the directory asked for, its output and errors kept apart")
    func runToItsEndWithDefaultSignals() async throws {
        signal(SIGPIPE, SIG_IGN)
        let result = try await ChildProcess.run(
            "/bin/sh",
            ["-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status; pwd >&2"],
            workingDirectory: "/usr/share"
        )
        #expect(result.status == 0)
        #expect(result.errors == "/usr/share\n")
        Self.expectDefaultSignals(result.output.split(separator: "\n").map(String.init))
    }

    /// Expects the `SigBlk` and `SigIgn` lines of a `/proc/PID/status` to name none of the standard signals.
    private static func expectDefaultSignals(_ lines: [String]) {
        var masks: [String: UInt64] = [:]
        for line in lines {
            let (name, value) = (line.prefix { $0 != ":" }, line.split(separator: "\t").last ?? "")
            masks[String(name)] = UInt64(value, radix: 16)
        }
        // Signals 1 to 31; 32 and 33 are glibc's own (thread cancellation, set*id), which it leaves as they are.
        let standard: UInt64 = (1 << 31) - 1
        #expect(masks["SigBlk"].map { $0 & standard } == 0, "blocked: \(masks)")
        #expect(masks["SigIgn"].map { $0 & standard } == 0, "ignored: \(masks)")
    }

    @Test("SIGTERM ends a program that leaves it at its default action")
    func terminatedBySIGTERM() async throws {
        let child = try SpawnedProcess("/bin/sleep", ["600"])
        child.send(SIGTERM)
        let status = try await withTimeout(.seconds(20), "sleep to end on SIGTERM") { await child.waitForExit() }
        #expect(status == 128 + SIGTERM)
    }
}
