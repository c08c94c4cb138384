import Foundation
import IntegrationHarness
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
        let watch = try SpawnedProcess(
            TestPaths.venvPython,
            ["-m", "varlink.cli", "call", "-m", "\(address)/io.navhost.Navigation.Watch", "{}"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        // The first reply is the snapshot: wait for it to be sent before changing anything.
        #expect(await readLines(of: watch) { $0.contains("snapshot") }, "the snapshot came")
        try await nav.call("Navigate", ["route": "products.list"])
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "card"]])
        #expect(await readLines(of: watch) { $0.contains(#""filter": "card""#) }, "the change came")
        watch.send(SIGTERM)
        let ended = try await withTimeout(.seconds(20), "the Python client to end on SIGTERM") {
            await watch.waitForExit()
        }
        #expect(ended == 128 + SIGTERM)
        try await daemon.terminate()
    }
}

/// Reads `process`'s standard output line by line until a line `holds`; `false` when the output ended first (or
/// nothing came for ``SpawnedProcess/patience``).
private func readLines(of process: SpawnedProcess, until holds: (String) -> Bool) async -> Bool {
    while let line = await process.readOutputLine() {
        if holds(line) { return true }
    }
    return false
}
