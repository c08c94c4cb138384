import Foundation
import IntegrationHarness
import Synchronization

/// The certification fixture, `varlink-certification-service`, running as a child process.
final class CertificationServiceProcess: Sendable {
    let socketPath: String
    private let process: Mutex<Process?>

    private init(socketPath: String, process: Process) {
        self.socketPath = socketPath
        self.process = Mutex(process)
    }

    /// Starts the fixture and returns once it says it listens.
    static func start() async throws -> CertificationServiceProcess {
        let executable = "\(TestPaths.buildDirectory)/varlink-certification-service"
        let socketPath = TestPaths.socketPath()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--socket", socketPath]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        let ready = AsyncStream.makeStream(of: String.self)
        let seen = Mutex("")
        try process.run()
        PipeReader.read(pipe.fileHandleForReading) { data in
            let text = seen.withLock { text -> String in
                text += String(decoding: data, as: UTF8.self)
                return text
            }
            guard data.isEmpty || text.contains("READY\n") else { return true }
            ready.continuation.yield(text)
            ready.continuation.finish()
            return false
        }
        let service = CertificationServiceProcess(socketPath: socketPath, process: process)
        let said = try await withTimeout(.seconds(20), "the certification service to listen") {
            var iterator = ready.stream.makeAsyncIterator()
            return await iterator.next() ?? ""
        }
        guard said.contains("READY") else {
            service.stop()
            throw TimedOut(what: "READY from \(executable) (it printed \(said.debugDescription))")
        }
        return service
    }

    /// Stops the fixture (SIGTERM to its own process ID) and removes its socket file.
    func stop() {
        process.withLock { process in
            if let process, process.isRunning {
                process.terminate()
                unlink(socketPath)
            }
            process = nil
        }
    }

    deinit { stop() }
}
