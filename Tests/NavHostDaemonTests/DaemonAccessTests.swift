import Foundation
import IntegrationHarness
import Testing

@Suite("Access by peer credentials")
struct DaemonAccessTests {
    /// Calls `method` on the daemon as `uid`/`gid` through the `varlink-call-as` fixture.
    func call(_ daemon: DaemonProcess, as uid: UInt32, _ gid: UInt32, _ method: String, _ parameters: String = "{}")
        async throws -> String
    {
        try await daemon.call(as: uid, gid, method, parameters)
    }

    @Test("Anyone who can reach the socket may read; only configured users and groups may control")
    func readersAndControllers() async throws {
        let daemon = try await DaemonProcess.start(
            extraArguments: ["--socket-mode", "0666", "--control-uid", "4242", "--control-group", "4343"]
        )
        let nobody: UInt32 = 65534
        // Reading is open to everyone.
        let stack = try await call(daemon, as: nobody, nobody, "io.navhost.Navigation.Stack")
        #expect(!stack.hasPrefix("error org.varlink.service.PermissionDenied"), "\(stack)")
        let info = try await call(daemon, as: nobody, nobody, "org.varlink.service.GetInfo")
        #expect(info.contains("io.navhost.Navigation"))
        // Controlling is not.
        for method in ["Navigate", "Present", "PopTo"] {
            let denied = try await call(
                daemon,
                as: nobody,
                nobody,
                "io.navhost.Navigation.\(method)",
                #"{"route":"settings.main"}"#
            )
            #expect(denied.hasPrefix("error org.varlink.service.PermissionDenied"), "\(method): \(denied)")
        }
        for method in ["Pop", "PopToRoot", "Dismiss"] {
            let denied = try await call(daemon, as: nobody, nobody, "io.navhost.Navigation.\(method)")
            #expect(denied.hasPrefix("error org.varlink.service.PermissionDenied"), "\(method): \(denied)")
        }
        let send = try await call(
            daemon,
            as: nobody,
            nobody,
            "io.navhost.Navigation.Send",
            #"{"intent":"onTappedSettings"}"#
        )
        #expect(send.hasPrefix("error org.varlink.service.PermissionDenied"))
        // Each refusal is logged with the caller's process and user ID (NAVHOST_CLIENT_PID in the journal).
        let refusals = daemon.log.split(separator: "\n").filter { $0.contains("Refused a control call") }
        #expect(refusals.count == 7, "\(refusals)")
        for line in refusals {
            #expect(line.contains(" navhost.client.uid=65534"), "\(line)")
            #expect(line.contains(/\snavhost\.client\.pid=[1-9][0-9]*\s/), "\(line)")
            #expect(!line.contains(" navhost.client.pid=\(daemon.pid) "), "the daemon's own PID: \(line)")
        }
        // A listed user, and a member (by primary group) of a listed group, may.
        let byUser = try await call(
            daemon,
            as: 4242,
            4242,
            "io.navhost.Navigation.Navigate",
            #"{"route":"settings.main"}"#
        )
        #expect(!byUser.contains("PermissionDenied"), "\(byUser)")
        let byGroup = try await call(daemon, as: 5000, 4343, "io.navhost.Navigation.Pop")
        #expect(!byGroup.contains("PermissionDenied"), "\(byGroup)")
        try await daemon.terminate()
    }

    @Test("A reader that sends control calls without end gets each refused; the log takes 10 lines of each such user")
    func refusalsAreLoggedWithinABudget() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: ["--socket-mode", "0666"])
        let denied = try await daemon.call(
            as: 65534,
            65534,
            "io.navhost.Navigation.Navigate",
            #"{"route":"settings.main"}"#,
            times: 200
        )
        #expect(denied.hasPrefix("error org.varlink.service.PermissionDenied"), "\(denied)")
        #expect(try await NavigationClient.connect(to: daemon).routes() == ["home.main"], "nothing changed")
        // A reload does not open a new window (before, each SIGHUP let 10 more through).
        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        _ = try await daemon.waitFor("READY=1", after: count)
        _ = try await daemon.call(as: 65534, 65534, "io.navhost.Navigation.Pop", times: 50)
        // Another user's refusals have a budget of their own: the first user's flood does not hide who else tried.
        _ = try await daemon.call(as: 65533, 65533, "io.navhost.Navigation.Pop", times: 30)
        // Before, each of the 200 refusals was a line: any user who may connect could fill the journal.
        let refusals = daemon.log.split(separator: "\n").filter { $0.contains("Refused a control call") }
        let first = refusals.filter { $0.contains("navhost.client.uid=65534") }
        let second = refusals.filter { $0.contains("navhost.client.uid=65533") }
        #expect(first.count == 10, "\(first.count) lines")
        #expect(second.count == 10, "\(second.count) lines")
        try await daemon.terminate()
    }

    @Test("A socket the daemon binds itself is mode 0660: other users cannot connect at all")
    func defaultSocketMode() async throws {
        let daemon = try await DaemonProcess.start()
        let attributes = try FileManagerAttributes.mode(of: daemon.socketPath)
        #expect(attributes == 0o660)
        let refused = try await call(daemon, as: 65534, 65534, "io.navhost.Navigation.Stack")
        #expect(refused.hasPrefix("connect-failed"), "\(refused)")
        try await daemon.terminate()
    }
}

enum FileManagerAttributes {
    static func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

extension DaemonProcess {
    /// Calls `method` as the user `uid` and group `gid` through the `varlink-call-as` fixture, `times` times on one
    /// connection, and returns what it printed for the last: the reply's parameters, or `error NAME …`.
    func call(
        as uid: UInt32,
        _ gid: UInt32,
        _ method: String,
        _ parameters: String = "{}",
        times: Int = 1
    ) async throws -> String {
        let result = try await ChildProcess.run(
            TestPaths.builtExecutable("varlink-call-as"),
            ["\(uid)", "\(gid)", socketPath, method, parameters] + (times > 1 ? ["--repeat", "\(times)"] : [])
        )
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
