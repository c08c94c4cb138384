import Foundation
import IntegrationHarness

/// The certification fixture, `varlink-certification-service`, running as a child process (``SpawnedProcess``).
final class CertificationServiceProcess: Sendable {
    let socketPath: String
    private let process: SpawnedProcess

    private init(socketPath: String, process: SpawnedProcess) {
        self.socketPath = socketPath
        self.process = process
    }

    /// Starts the fixture and returns once it says it listens.
    static func start() async throws -> CertificationServiceProcess {
        let executable = "\(TestPaths.buildDirectory)/varlink-certification-service"
        let socketPath = TestPaths.socketPath()
        let service = CertificationServiceProcess(
            socketPath: socketPath,
            process: try SpawnedProcess(executable, ["--socket", socketPath])
        )
        let said = try await withTimeout(.seconds(20), "the certification service to listen") {
            var lines: [String] = []
            while let line = await service.process.readOutputLine() {
                lines.append(line)
                if line == "READY" { break }
            }
            return lines
        }
        guard said.last == "READY" else {
            service.stop()
            throw TimedOut(what: "READY from \(executable) (it printed \(said.debugDescription))")
        }
        return service
    }

    /// Stops the fixture (SIGTERM to its own process ID) and removes its socket file.
    func stop() {
        if process.isRunning {
            process.send(SIGTERM)
            unlink(socketPath)
        }
    }

    deinit { stop() }
}
