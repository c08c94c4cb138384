import Foundation
import Glibc
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

@Suite("The daemon's life under a service manager")
struct DaemonLifecycleTests {
    @Test("READY and STATUS, then RELOADING with MONOTONIC_USEC and READY on SIGHUP, then STOPPING on SIGTERM")
    func notificationSequence() async throws {
        let daemon = try await DaemonProcess.start()
        let ready = daemon.notifications.first { $0.contains("READY=1") } ?? ""
        #expect(ready.contains("STATUS=4 plugins loaded, 0 quarantined; 1 session; 0 clients"))

        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        let reloading = try await daemon.waitFor("RELOADING=1", after: count)
        let monotonic = reloading.split(separator: "\n").first { $0.hasPrefix("MONOTONIC_USEC=") }
        let microseconds = try #require(monotonic.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) })
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        #expect(microseconds <= nowMicroseconds && nowMicroseconds - microseconds < 60_000_000)
        try await daemon.waitFor("READY=1", after: count + 1)

        let nav = try await NavigationClient.connect(to: daemon)
        #expect(try await nav.routes() == ["home.main"], "still serving after the reload")
        let stopping = daemon.notifications.count
        daemon.send(signal: SIGTERM)
        try await daemon.waitFor("STOPPING=1", after: stopping)
        #expect(try await daemon.waitForExit(within: .seconds(30)) == 0, "a graceful stop exits 0")
    }

    @Test("With WATCHDOG_USEC it pings, never more often than half the time-out; with its MainActor wedged it stops")
    func watchdogPingsFromTheMainActor() async throws {
        let timeout: Duration = .milliseconds(200)
        let daemon = try await DaemonProcess.start(
            extraArguments: ["--enable-test-hooks"],
            environment: ["WATCHDOG_USEC": "200000"]
        )
        // Eight pings, as the kernel stamped their arrival: never closer together than half the time-out allows. How
        // often the watchdog pings is `Watchdog`'s, checked with its sleep injected (WatchdogTests.injectedSleep): a
        // busy machine may delay a ping, never hasten one, so no bound here depends on the machine's load.
        let stamps = try await daemon.arrivals(of: "WATCHDOG=1", count: 8)
        let span = try #require(stamps.last) - (try #require(stamps.first))
        #expect(span >= timeout / 2 * 7 * 0.8, "8 pings in \(span)")
        // The time-out the daemon took from WATCHDOG_USEC, which the pings' interval is half of.
        #expect(daemon.log.contains(#"Watchdog on navhost.watchdog.timeout="0.2 seconds""#), "\(daemon.log)")

        // The test hook (SIGUSR1) logs on the main actor, then blocks it for good: every ping arrived before the line.
        daemon.send(signal: SIGUSR1)
        try await daemon.waitForLog("Test hook: wedging the main actor")
        let late = await daemon.notifications(arrivingWithin: timeout * 5).filter { $0 == "WATCHDOG=1" }
        #expect(late.isEmpty, "\(late.count) pings from a daemon whose MainActor is wedged")
        #expect(daemon.isRunning, "the pings stopped because the MainActor is wedged, not because the daemon died")
        try await daemon.crash()
    }

    @Test("A stall limit not under half the watchdog's time-out is warned about at start; one under it is not")
    func stallLimitOverTheWatchdog() async throws {
        let warning = "The stall limit is not under half the watchdog's time-out"
        let over = try await DaemonProcess.start(environment: ["WATCHDOG_USEC": "4000000"])
        #expect(over.log.contains(warning), "the default stall limit, 10 s, against a 4 s watchdog")
        _ = try await over.terminate()

        // Under the time-out but not under half of it: the last ping may have gone out 2 s before a hold began.
        let overHalf = try await DaemonProcess.start(
            extraArguments: ["--stall-limit", "3s"],
            environment: ["WATCHDOG_USEC": "4000000"]
        )
        #expect(overHalf.log.contains(warning), "3 s (and two ticks of the detector) against 2 s")
        _ = try await overHalf.terminate()

        let under = try await DaemonProcess.start(
            extraArguments: ["--stall-limit", "1s"],
            environment: ["WATCHDOG_USEC": "4000000"]
        )
        #expect(!under.log.contains(warning), "1.5 s at most against 2 s")
        _ = try await under.terminate()
    }

    @Test("A second daemon on a running one's state folder is refused, and the first one's sessions stay as they were")
    func secondDaemonOnTheStateFolderIsRefused() async throws {
        let first = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: first)
        try await nav.call("Navigate", ["route": "settings.main"])

        // Its own socket, the first one's state folder: it would write the same records as if alone.
        let second = try await DaemonProcess.start(stateDirectory: first.stateDirectory, waitingForReady: false)
        #expect(try await second.waitForExit(within: .seconds(30)) != 0)
        let refusal = "navhostd (process \(first.pid)) uses the state folder \(first.stateDirectory)"
        // Once: the critical log line alone (before, ArgumentParser printed it again, "Error: …", on the same stderr).
        #expect(second.log.components(separatedBy: refusal).count == 2, "\(second.log)")
        #expect(try await nav.routes() == ["home.main", "settings.main"])
        try await first.crash()
        try await first.restart()
        let again = try await NavigationClient.connect(to: first)
        #expect(try await again.routes() == ["home.main", "settings.main"], "the acknowledged push survived")
        _ = try await first.terminate()
    }

    @Test("A second daemon on a running one's socket is refused; the first one stays reachable, its socket in place")
    func secondDaemonOnTheSocketIsRefused() async throws {
        let first = try await DaemonProcess.start()
        let second = try await DaemonProcess.start(
            extraArguments: ["--socket", first.socketPath],
            waitingForReady: false
        )
        #expect(try await second.waitForExit(within: .seconds(30)) != 0)
        #expect(second.log.components(separatedBy: "another server listens on \(first.socketPath)").count == 2)
        #expect(!second.log.contains("Loaded a plugin"), "refused before any plugin code ran")
        let nav = try await NavigationClient.connect(to: first)
        #expect(try await nav.routes() == ["home.main"])
        _ = try await first.terminate()
    }

    /// Slow by design: it waits the lock's whole patience, 10 s (`SocketPathLock.patience`). The wait is no option,
    /// and the daemon has no test-only way to shorten it: the lock covers a step of a few system calls, so a holder
    /// that slow is stuck on any machine; a setting for it would only make a start that fails anyway fail sooner or
    /// later, and systemd's TimeoutStartSec bounds a start already.
    @Test(
        "A socket path's lock held past the wait stops the daemon with status 1, logged once as critical, as in use"
    )
    func socketPathLockHeldTooLong() async throws {
        let socket = TestPaths.socketPath()
        let lockPath = socket + ".lock"
        defer { unlink(lockPath) }
        // Another server stuck in the middle of its bind: it holds the lock, and never lets it go.
        let lockFile = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        defer { close(lockFile) }
        try #require(lockFile >= 0 && flock(lockFile, LOCK_EX) == 0)

        let daemon = try await DaemonProcess.start(extraArguments: ["--socket", socket], waitingForReady: false)

        #expect(try await daemon.waitForExit(within: .seconds(60)) == 1)
        let refusal =
            "another process held \(lockPath), the lock of the socket \(socket), for 10.0 seconds (another navhostd "
            + "stuck binding or removing it?): stop it first, or give this daemon another --socket"
        // Once: the critical log line alone, not ArgumentParser's "Error: …" after it.
        #expect(daemon.log.components(separatedBy: refusal).count == 2, "\(daemon.log)")
        #expect(!daemon.log.contains("Error:"), "\(daemon.log)")
        let line = daemon.log.split(separator: "\n").first { $0.contains(refusal) } ?? ""
        #expect(line.hasPrefix("<2>"), "syslog's priority of critical: \(line)")
    }

    @Test("A socket whose folder cannot be created stops the daemon with status 1, naming the socket and --socket")
    func socketFolderCannotBeCreated() async throws {
        let first = try await DaemonProcess.start()
        // A regular file where the socket's folder would be: mkdir fails (ENOTDIR) even for root. Short names: under
        // `make test`'s temporary folder a longer path would pass a Unix socket's 107 bytes, refused before this.
        let file = first.stateDirectory + "/file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let socket = file + "/run/io.navhost"
        let second = try await DaemonProcess.start(
            stateDirectory: first.stateDirectory + "-second",
            extraArguments: ["--socket", socket],
            waitingForReady: false
        )
        #expect(try await second.waitForExit(within: .seconds(30)) == 1)
        #expect(
            second.log.contains(
                "cannot create \(file)/run, the folder of the socket \(socket): Not a directory; give --socket"
            ),
            "\(second.log)"
        )
        // Said before any plugin loads: it took every plugin's load and the sessions' opening before.
        #expect(!second.log.contains("Loaded a plugin"), "\(second.log)")
        _ = try await first.terminate()
    }

    @Test("A daemon that stops leaves alone a socket another daemon bound at its path since")
    func stopLeavesAnotherDaemonsSocket() async throws {
        let first = try await DaemonProcess.start()
        // Its socket file removed by hand, a second daemon takes the path.
        unlink(first.socketPath)
        let second = try await DaemonProcess.start(extraArguments: ["--socket", first.socketPath])
        #expect(try await first.terminate() == 0)
        let nav = NavigationClient(client: try await VarlinkClient.connect(unixSocketPath: first.socketPath))
        #expect(try await nav.routes() == ["home.main"], "the second daemon is still reachable")
        try await second.terminate()
        #expect(!FileManager.default.fileExists(atPath: first.socketPath), "each removes its own socket file")
    }

    @Test("On SIGTERM a watcher's stream ends cleanly and an in-flight call is answered")
    func gracefulShutdown() async throws {
        let daemon = try await DaemonProcess.start()
        let watcher = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(watcher.watch())
        try await updates.next()
        let caller = try await NavigationClient.connect(to: daemon)
        let navigating = Task { try await caller.call("Navigate", ["route": "settings.main"]) }
        try await updates.next()  // the push is done
        daemon.send(signal: SIGTERM)
        _ = try await navigating.value
        // The stream ends instead of hanging: waiting for a reply that never comes fails with "the stream ended".
        let ending = await #expect(throws: TimedOut.self) {
            try await updates.next(within: .seconds(20)) { _ in false }
        }
        #expect(ending?.description.contains("the stream ended") == true)
        #expect(try await daemon.waitForExit(within: .seconds(30)) == 0)
    }

    @Test(
        "Under systemd-socket-activate the daemon serves the socket it inherits, and warns that socket-mode does not apply to it when it is given",
        arguments: [["--socket-mode", "0600"], []]
    )
    func socketActivation(socketMode: [String]) async throws {
        let directory = try TestPaths.temporaryDirectory()
        let socket = TestPaths.socketPath()
        let log = "\(directory)/navhostd.log"
        // Spawned, not a Foundation `Process`: the activator closes the descriptors it inherited while it waits, which
        // would hold Foundation's process monitor for every other test (see `SpawnedProcess`).
        let activator = try SpawnedProcess(
            "/usr/bin/systemd-socket-activate",
            [
                "-l", socket, "--fdname=varlink", TestPaths.builtExecutable("navhostd"),
                "--plugins", DaemonProcess.examplePlugins, "--state-dir", "\(directory)/state",
                "--socket", "\(directory)/not-used.sock",
            ] + socketMode,
            output: .file(log)
        )
        defer { activator.send(SIGTERM) }
        // The activator listens at once and starts navhostd on the first connection.
        var client: VarlinkClient?
        _ = try await pollUntil {
            client = try? await VarlinkClient.connect(unixSocketPath: socket)
            return client != nil
        }
        let connected = try #require(client)
        let reply = try await connected.call("io.navhost.Navigation.Stack", parameters: [:])
        #expect(reply["snapshot"]?["stack"]?.arrayValue?.first?["route"] == "home.main")
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/not-used.sock"), "it did not bind its own path")
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("Serving the socket systemd passed"), "\(logged)")
        let warned = logged.contains("socket-mode does not apply to the socket systemd passed")
        #expect(warned == !socketMode.isEmpty, "\(logged)")
        #expect(logged.contains("navhost.socket-mode=0600") == !socketMode.isEmpty, "\(logged)")
    }
}
