import Foundation
import IntegrationHarness
import NavHostJSON
import Testing

/// `--busy-poll`: after a client's read the daemon's loop keeps polling for the window, spending CPU, then sleeps and
/// spends none (docs/architecture.md, "Polling after a read"). What it buys is measured by `navhost-bench`, not here:
/// these tests hold the part a user relies on, that the polling ends.
@Suite("Polling after a read")
struct DaemonBusyPollTests {
    @Test(
        "After a call the loop polls for --busy-poll's window, then sleeps; off, pinned to one CPU or turned off by SIGHUP, it does not poll"
    )
    func pollsForTheWindowThenSleeps() async throws {
        // Only on a machine where the daemon may use two CPUs: on one, nothing polls.
        guard ProcessInfo.processInfo.activeProcessorCount > 1 else { return }
        let polling = try await DaemonProcess.start(extraArguments: ["--busy-poll", "900ms"])
        try await Self.expectCPU(of: polling, polling: true)
        let quiet = try await DaemonProcess.start(extraArguments: ["--busy-poll", "off"])
        try await Self.expectCPU(of: quiet, polling: false)
        let pinned = try await DaemonProcess.start(
            extraArguments: ["--busy-poll", "900ms"],
            launcher: ["/usr/bin/taskset", "-c", "0"]
        )
        try await Self.expectCPU(of: pinned, polling: false)
        // Off by a reload: the window of the loop's poller goes to nothing.
        let config = try DaemonConfigurationTests.ConfigFolder("limits:\n  busy-poll: 900ms\n")
        let reloaded = try await DaemonProcess.start(extraArguments: ["--config", config.file])
        try await Self.expectCPU(of: reloaded, polling: true)
        try config.write("limits:\n  busy-poll: off\n")
        let count = reloaded.notifications.count
        reloaded.send(signal: SIGHUP)
        _ = try await reloaded.waitFor("READY=1", after: count)
        try await Self.expectCPU(of: reloaded, polling: false)
        for daemon in [polling, quiet, pinned, reloaded] { #expect(try await daemon.terminate() == 0) }
    }

    /// Makes one call to `daemon`, then expects it to spend CPU in the next 600 ms when `polling` (none otherwise),
    /// and none in an idle second after.
    private static func expectCPU(of daemon: DaemonProcess, polling: Bool) async throws {
        let client = try await NavigationClient.connect(to: daemon)
        // Settle what start-up left (plugin loads, the first writes), then one call.
        try await Task.sleep(for: .seconds(1.2))
        let before = try cpuTime(of: daemon.pid)
        _ = try await client.call("Stack", [:])
        try await Task.sleep(for: .milliseconds(600))
        let during = try cpuTime(of: daemon.pid) - before
        // Past the window: the loop sleeps.
        try await Task.sleep(for: .milliseconds(600))
        let after = try cpuTime(of: daemon.pid)
        try await Task.sleep(for: .seconds(1))
        let idle = try cpuTime(of: daemon.pid) - after
        if polling {
            // Polling the whole 600 ms would be 600; a loaded machine gives the loop less of a CPU.
            #expect(during >= .milliseconds(60), "the loop polls after the call: \(during) of CPU in 600 ms")
        } else {
            #expect(during < .milliseconds(60), "the loop sleeps after the call: \(during) of CPU in 600 ms")
        }
        #expect(idle < .milliseconds(60), "no read, no polling: \(idle) of CPU in an idle second")
        try await client.close()
    }

    @Test("--busy-poll takes microseconds and refuses more than a second, on the command line and in navhostd.conf")
    func windowIsChecked() async throws {
        let folder = try DaemonConfigurationTests.ConfigFolder("limits:\n  busy-poll: 0.5ms\n")
        let fromFile = try await folder.check()
        #expect(fromFile.status == 0, "\(fromFile.errors)")
        #expect(fromFile.output.contains("busy-poll 500us"), "\(fromFile.output)")
        let fromOption = try await folder.check(["--busy-poll", "150us"])
        #expect(fromOption.output.contains("busy-poll 150us"), "the option overrides the file: \(fromOption.output)")
        let tooLong = try await folder.check(["--busy-poll", "2s"])
        #expect(tooLong.status == 64)
        #expect(tooLong.errors.contains("--busy-poll must be at most 1s"), "\(tooLong.errors)")
        try folder.write("limits:\n  busy-poll: 5s\n")
        let refused = try await folder.check()
        #expect(refused.status == 78)
        #expect(refused.errors.contains("busy-poll"), "\(refused.errors)")
        try folder.write("")
        let defaulted = try await folder.check()
        #expect(defaulted.output.contains("busy-poll 300us"), "\(defaulted.output)")
    }

    /// The CPU time the daemon has used (`/proc/PID/stat`).
    private static func cpuTime(of pid: Int32) throws -> Duration {
        try #require(ProcessStat.cpuTime(of: pid), "process \(pid) is gone")
    }
}
