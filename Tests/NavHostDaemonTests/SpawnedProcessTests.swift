import Foundation
import IntegrationHarness
import Testing

/// What a program the tests start by hand (``SpawnedProcess``, through ``PosixSpawn``) inherits from the test process.
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
        var masks: [String: UInt64] = [:]
        while let line = await child.readOutputLine() {
            let (name, value) = (line.prefix { $0 != ":" }, line.split(separator: "\t").last ?? "")
            masks[String(name)] = UInt64(value, radix: 16)
        }
        #expect(await child.waitForExit() == 0)
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
