import Foundation
import IntegrationHarness
import NavHostSystemd
import Testing

/// The notification sequence, sent by a real process to a socket the test owns, as systemd would receive it.
@Suite("sd_notify messages reach the service manager")
struct NotifyTests {
    @Test("A daemon's notifications arrive in order: READY, STATUS, RELOADING with MONOTONIC_USEC, READY, STOPPING")
    func lifecycleSequence() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try DatagramReceiver(path: directory.appending("notify"))
        let probe = try SpawnedProcess(
            TestPaths.builtExecutable("NotifyProbe"),
            ["lifecycle"],
            environment: ["NOTIFY_SOCKET": manager.path]
        )

        func next() async throws -> DatagramReceiver.Datagram {
            let datagram = try #require(
                try await manager.receive(timeout: SpawnedProcess.patience),
                "no notification came"
            )
            #expect(datagram.senderPID == probe.pid, "NotifyAccess=main accepts only the main process's datagrams")
            return datagram
        }

        #expect(try await next().text == "READY=1")
        #expect(try await next().text == "STATUS=Serving (probe, 0 reloads)")

        let beforeReload = monotonicMicroseconds()
        probe.send(SIGHUP)
        let reloading = try await next().text.split(separator: "\n")
        let afterReload = monotonicMicroseconds()
        #expect(reloading.first == "RELOADING=1")
        let stamp = try #require(reloading.dropFirst().first, "RELOADING=1 comes with MONOTONIC_USEC")
        #expect(stamp.hasPrefix("MONOTONIC_USEC="))
        let microseconds = try #require(UInt64(stamp.dropFirst("MONOTONIC_USEC=".count)))
        #expect((beforeReload...afterReload).contains(microseconds), "stamped with CLOCK_MONOTONIC during the reload")
        #expect(try await next().text == "STATUS=Reloading plugins")
        #expect(try await next().text == "READY=1")
        #expect(try await next().text == "STATUS=Serving (probe, 1 reloads)")

        probe.send(SIGTERM)
        #expect(try await next().text == "STOPPING=1")
        #expect(try await next().text == "STATUS=Shutting down")
        #expect(await probe.waitForExit() == 0)
    }

    @Test(
        "Without NOTIFY_SOCKET, notifying does nothing and says so",
        .enabled(if: ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] == nil)
    )
    func noManager() throws {
        let notifier = SystemdNotifier()
        #expect(!notifier.isEnabled)
        #expect(try notifier.notify(.ready, .status("Serving")) == false)
    }

    @Test("Messages are written in sd_notify's line format")
    func messageText() throws {
        #expect(SystemdNotifier.Message.ready.description == "READY=1")
        #expect(SystemdNotifier.Message.stopping.description == "STOPPING=1")
        #expect(SystemdNotifier.Message.watchdog.description == "WATCHDOG=1")
        #expect(SystemdNotifier.Message.status("two\nlines").description == "STATUS=two lines")
        #expect(SystemdNotifier.Message.errno(5).description == "ERRNO=5")
        #expect(SystemdNotifier.Message.mainPID(42).description == "MAINPID=42")
        #expect(SystemdNotifier.Message.watchdogTimeout(.milliseconds(1500)).description == "WATCHDOG_USEC=1500000")
        #expect(SystemdNotifier.Message.extendTimeout(by: .seconds(3)).description == "EXTEND_TIMEOUT_USEC=3000000")
        #expect(
            SystemdNotifier.Message.reloading(monotonicMicroseconds: 12).description
                == "RELOADING=1\nMONOTONIC_USEC=12"
        )
        #expect(try SystemdNotifier.Message(field: "NOTIFYACCESS", value: "all").description == "NOTIFYACCESS=all")
    }

    @Test("A message that would break the line format is refused")
    func invalidMessage() {
        #expect(throws: SystemdError.self) { try SystemdNotifier.Message(field: "status", value: "x") }
        #expect(throws: SystemdError.self) { try SystemdNotifier.Message(field: "STATUS", value: "a\nREADY=1") }
        #expect(throws: SystemdError.self) { try SystemdNotifier.Message(field: "", value: "x") }
    }

    @Test("A fresh RELOADING message is stamped with CLOCK_MONOTONIC now")
    func reloadingStamp() throws {
        let before = monotonicMicroseconds()
        let lines = SystemdNotifier.Message.reloading.description.split(separator: "\n")
        let after = monotonicMicroseconds()
        let last = try #require(lines.last)
        let stamp = try #require(UInt64(last.dropFirst("MONOTONIC_USEC=".count)))
        #expect((before...after).contains(stamp))
    }
}

/// `CLOCK_MONOTONIC` in microseconds, read independently of the module.
func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}
