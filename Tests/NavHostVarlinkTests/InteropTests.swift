import Foundation
import IntegrationHarness
import NavHostVarlink
import Testing

/// These tests need the peers `scripts/install-deps.sh` installs: the Python `varlink` package in `.venv`, and
/// Debian's `varlink-go`. A missing peer fails the test: CI must have them.
@Suite("Interoperating with other Varlink implementations", .serialized)
struct InteropTests {
    static let goCertification = "/usr/bin/varlink-go-certification"

    func requirePython() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: TestPaths.venvPython),
            "\(TestPaths.venvPython) is missing: run scripts/install-deps.sh"
        )
    }

    @Test("The Python reference certification client passes against the certification service")
    func pythonCertification() async throws {
        try requirePython()
        let service = try await CertificationServiceProcess.start()
        defer { service.stop() }
        let result = try await ChildProcess.run(
            TestPaths.venvPython,
            ["-m", "varlink.tests.test_certification", "--client", "--varlink=unix:\(service.socketPath)"]
        )
        #expect(result.status == 0, "\(result.output)\n\(result.errors)")
        #expect(result.output.contains("Certification passed"), "\(result.output)\n\(result.errors)")
    }

    @Test("The Go certification client passes against the certification service")
    func goCertification() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.goCertification),
            "\(Self.goCertification) is missing: run scripts/install-deps.sh (Debian package varlink-go)"
        )
        let service = try await CertificationServiceProcess.start()
        defer { service.stop() }
        let result = try await ChildProcess.run(
            Self.goCertification,
            ["-client", "-varlink", "unix:\(service.socketPath)"]
        )
        // The Go client exits 0 even when a step fails; it prints "End: 'true'" only when all passed.
        #expect(result.status == 0, "\(result.output)\n\(result.errors)")
        #expect(result.output.contains("End: 'true'"), "\(result.output)\n\(result.errors)")
    }

    @Test("The Python client introspects the certification service and parses every description")
    func pythonIntrospectsCertificationService() async throws {
        try requirePython()
        let service = try await CertificationServiceProcess.start()
        defer { service.stop() }
        try await introspect(
            address: "unix:\(service.socketPath)",
            interfaces: [
                "org.varlink.service", "org.varlink.certification",
            ]
        )
        let call = try await ChildProcess.run(
            TestPaths.venvPython,
            ["-m", "varlink.cli", "call", "unix:\(service.socketPath)/org.varlink.certification.Start", "{}"]
        )
        #expect(call.status == 0 && call.output.contains("client_id"), "\(call.output)\n\(call.errors)")
    }

    @Test("The Python client introspects and calls a service running in this process")
    func pythonCallsInProcessService() async throws {
        try requirePython()
        try await RunningServer.with { server in
            try await introspect(
                address: "unix:\(server.path)",
                interfaces: ["org.varlink.service", "org.navhost.test"]
            )
            let more = try await ChildProcess.run(
                TestPaths.venvPython,
                ["-m", "varlink.cli", "call", "-m", "unix:\(server.path)/org.navhost.test.Count", #"{"to":3}"#]
            )
            #expect(more.status == 0, "\(more.output)\n\(more.errors)")
            #expect(more.output.components(separatedBy: "\"number\"").count - 1 == 3, "\(more.output)")
            let failing = try await ChildProcess.run(
                TestPaths.venvPython,
                ["-m", "varlink.cli", "call", "unix:\(server.path)/org.navhost.test.Echo", #"{"txt":"x"}"#]
            )
            #expect(failing.errors.contains("org.varlink.service.InvalidParameter"), "\(failing.errors)")
        }
    }

    /// Runs `varlink.cli info` (which fetches and parses every interface description) and `help` per interface,
    /// whose output must be the description exactly as served.
    private func introspect(address: String, interfaces: [String]) async throws {
        let info = try await ChildProcess.run(TestPaths.venvPython, ["-m", "varlink.cli", "info", address])
        #expect(info.status == 0, "\(info.output)\n\(info.errors)")
        for interface in interfaces {
            #expect(info.output.contains("   \(interface)\n"), "\(info.output)")
        }
        let client = try await VarlinkClient.connect(unixSocketPath: String(address.dropFirst("unix:".count)))
        for interface in interfaces {
            let help = try await ChildProcess.run(
                TestPaths.venvPython,
                ["-m", "varlink.cli", "help", "\(address)/\(interface)"]
            )
            #expect(help.status == 0, "\(help.output)\n\(help.errors)")
            let served = try await client.call(
                "org.varlink.service.GetInterfaceDescription",
                parameters: ["interface": .string(interface)]
            )
            #expect(help.output == (served["description"]?.stringValue ?? "") + "\n", "\(help.output)")
        }
        try await client.close()
    }
}
