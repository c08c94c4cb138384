import Foundation
import IntegrationHarness
import Synchronization
import Testing

/// Waits until `condition` holds, for at most `limit`.
func waitUntil(within limit: Duration = .seconds(30), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(what: "a condition to hold") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

@Suite("Other Varlink implementations against the daemon")
struct DaemonInteropTests {
    func python(_ arguments: [String]) async throws -> ChildProcess.Result {
        #expect(FileManager.default.isExecutableFile(atPath: TestPaths.venvPython), "run scripts/install-deps.sh")
        return try await ChildProcess.run(TestPaths.venvPython, ["-m", "varlink.cli"] + arguments)
    }

    @Test("The Python reference client introspects, parses every interface, calls methods and follows Watch")
    func pythonReferenceClient() async throws {
        let daemon = try await DaemonProcess.start()
        let address = "unix:\(daemon.socketPath)"
        let info = try await python(["info", address])
        #expect(info.status == 0, "\(info.errors)")
        for interface in ["org.varlink.service", "io.navhost.Navigation", "io.navhost.Plugins"] {
            #expect(info.output.contains(interface))
            let help = try await python(["help", "\(address)/\(interface)"])
            #expect(help.status == 0 && help.errors.isEmpty, "\(interface) parses: \(help.errors)")
            #expect(help.output.contains("interface \(interface)"))
        }
        let navigate = try await python([
            "call", "\(address)/io.navhost.Navigation.Navigate", #"{"route":"settings.main"}"#,
        ])
        #expect(navigate.output.contains(#""route": "settings.main""#), "\(navigate.output) \(navigate.errors)")
        let plugins = try await python(["call", "\(address)/io.navhost.Plugins.List", "{}"])
        #expect(plugins.output.contains(#""state": "loaded""#))

        // Follow a Watch with "more" while another change happens, then stop the client.
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: TestPaths.venvPython)
        watch.arguments = ["-m", "varlink.cli", "call", "-m", "\(address)/io.navhost.Navigation.Watch", "{}"]
        let output = Pipe()
        watch.standardOutput = output
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        let nav = try await NavigationClient.connect(to: daemon)
        // The first reply is the snapshot: wait for it to be sent before changing anything.
        let text = Mutex("")
        PipeReader.read(output.fileHandleForReading) { data in
            text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            return true
        }
        try await waitUntil { text.withLock { $0.contains("snapshot") } }
        try await nav.call("Navigate", ["route": "products.list"])
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "card"]])
        try await waitUntil { text.withLock { $0.contains(#""filter": "card""#) } }
        watch.terminate()
        try await daemon.terminate()
    }
}
