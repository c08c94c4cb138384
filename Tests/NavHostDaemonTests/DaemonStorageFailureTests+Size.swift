import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// A state file larger than the daemon reads back at start (16 MiB, `FileIO.largestFile`) is never written: the call
// that would make one is answered StorageFailed and changes nothing. Written, it was acknowledged, then refused at the
// next start, and the whole session started afresh (a durability review, session 61).

extension DaemonStorageFailureTests {
    @Test("A session state past what the daemon reads back: StorageFailed, nothing changed, kill -9 keeps the rest")
    func stateLargerThanTheDaemonReadsBack() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: ["--max-message-size", "4M"])
        let nav = try await Self.largeRepliesClient(daemon)
        let text = JSONValue.string(String(repeating: "x", count: 3_500_000))
        let calls: [(String, JSONObject)] = [
            ("Navigate", ["route": "products.list"]),
            ("Send", ["intent": "onChangedFilter", "arguments": ["text": text]]),
        ]
        var refusal: VarlinkError?
        rounds: for _ in 0..<12 {
            for (method, parameters) in calls {
                let before = try await nav.routes()
                do {
                    try await nav.call(method, parameters)
                } catch let error as VarlinkError {
                    refusal = error
                    #expect(try await nav.routes() == before, "the refused \(method) changed nothing")
                    break rounds
                }
            }
        }
        let failure = try #require(refusal, "a state of more than 16 MiB is refused")
        #expect(failure.name == "io.navhost.Navigation.StorageFailed", "\(failure)")
        let reason = failure.parameters["reason"]?.stringValue ?? ""
        #expect(reason.contains("the daemon reads back"), "\(reason)")
        let acknowledged = try await nav.routes()
        #expect(acknowledged.count > 3, "\(acknowledged.count) screens before the refusal")
        try await daemon.crash()
        try await daemon.restart()
        let restarted = try await Self.largeRepliesClient(daemon)
        #expect(try await restarted.routes() == acknowledged, "the session comes back as acknowledged, not afresh")
        // Smaller again, it is written as before.
        try await restarted.call("Pop")
        let popped = try await restarted.routes()
        try await daemon.crash()
        try await daemon.restart()
        #expect(try await Self.largeRepliesClient(daemon).routes() == popped)
        #expect(try await daemon.terminate() == 0)
    }

    @Test("An opened-sessions list past what the daemon reads back: OpenSession refused, the others kept")
    func openedSessionsListLargerThanTheDaemonReadsBack() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: ["--max-message-size", "4M"])
        let nav = try await Self.largeRepliesClient(daemon)
        let productID = JSONValue.string(String(repeating: "p", count: 3_500_000))
        var opened: [String] = []
        var refusal: VarlinkError?
        for index in 0..<12 {
            do {
                try await nav.call(
                    "OpenSession",
                    ["name": .string("s\(index)"), "root": "products.detail", "parameters": ["productID": productID]]
                )
                opened.append("s\(index)")
            } catch let error as VarlinkError {
                refusal = error
                break
            }
        }
        let failure = try #require(refusal, "a list of more than 16 MiB is refused")
        #expect(failure.name == "io.navhost.Navigation.StorageFailed", "\(failure)")
        let listed = try await nav.call("Sessions")["sessions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(listed) == Set(opened + ["main"]), "the refused OpenSession opened nothing")
        try await daemon.crash()
        try await daemon.restart()
        let restarted = try await Self.largeRepliesClient(daemon)
        let kept = try await restarted.call("Sessions")["sessions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(kept) == Set(opened + ["main"]), "every acknowledged session comes back")
        try await restarted.call("CloseSession", ["name": .string(opened[0])])
        #expect(try await daemon.terminate() == 0)
    }

    @Test("Under a file size limit, a Load whose library copy passes it serves from the folder; the daemon stays up")
    func fileSizeLimitDoesNotEndTheDaemon() async throws {
        let plugins = try await TestPlugins.directory()
        // Settings from elsewhere, its library padded past the limit (trailing zeros load the same), its manifest's
        // SHA-256 made to match.
        let large = (plugins as NSString).deletingLastPathComponent + "/large"
        let elsewhere = "\(large)/Settings"
        try FileManager.default.createDirectory(atPath: large, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(DaemonProcess.examplePlugins)/Settings", toPath: elsewhere)
        let library = "\(elsewhere)/libSettingsFeature.so"
        let padded = try Data(contentsOf: URL(fileURLWithPath: library)) + Data(count: 6 << 20)
        try padded.write(to: URL(fileURLWithPath: library))
        let digest = try await ChildProcess.run("/usr/bin/sha256sum", [library]).output.prefix(64)
        try TestPlugins.writeChecksum(String(digest), of: "Settings", in: large)

        // The default action of SIGXFSZ, which a write past the limit sends, ended the daemon.
        let daemon = try await DaemonProcess.start(plugins: plugins, launcher: ["/usr/bin/prlimit", "--fsize=4194304"])
        try await DaemonPluginReloadTests.plugins(daemon, "Unload", ["name": "Settings"])
        let answer = await DaemonDurabilityTests.Answer {
            try await DaemonPluginReloadTests.plugins(daemon, "Load", ["path": .string(elsewhere)])
        }
        // The copy into the state folder fails (EFBIG), as on a full disk: the library is served from its folder.
        #expect(answer == .done, "\(answer)")
        #expect(daemon.log.contains("plugin-images"), "the failed copy is logged")
        let nav = try await NavigationClient.connect(to: daemon)
        #expect(try await nav.call("Navigate", ["route": "settings.main"])["screen"]?["route"] == "settings.main")
        // And the next start, which loads the same folder, too.
        try await daemon.crash()
        try await daemon.restart()
        let rows = try await DaemonPluginReloadTests.plugins(daemon, "List")["plugins"]?.arrayValue ?? []
        let loaded = rows.filter { $0["folder"]?.stringValue == elsewhere }.map { $0["state"]?.stringValue ?? "?" }
        #expect(loaded == ["loaded"], "the acknowledged Load is loaded at start: \(rows)")
        #expect(try await daemon.terminate() == 0)
    }

    /// A client that takes replies of up to 64 MiB: a `Stack` of these sessions is larger than the default 1 MiB.
    private static func largeRepliesClient(_ daemon: DaemonProcess) async throws -> NavigationClient {
        NavigationClient(
            client: try await VarlinkClient.connect(unixSocketPath: daemon.socketPath, maxMessageSize: 64 << 20)
        )
    }
}
