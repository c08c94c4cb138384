import Foundation
import Synchronization

/// Runs programs for the interoperability tests, bounded by timeouts.
package enum ChildProcess {
    package struct Result: Sendable {
        package var status: Int32
        package var output: String
        package var errors: String
    }

    /// Runs `executable` to its end and collects what it printed; kills it if it outlives `limit`.
    ///
    /// - Parameter workingDirectory: The directory it runs in; the test's own when `nil`.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        workingDirectory: String? = nil,
        limit: Duration = .seconds(60)
    ) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        let output = try TemporaryFile()
        let errors = try TemporaryFile()
        process.standardOutput = output.handle
        process.standardError = errors.handle
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        do {
            try await withTimeout(limit, "\(executable) \(arguments.joined(separator: " "))") {
                for await _ in exited.stream {}
            }
        } catch {
            process.terminate()
            throw error
        }
        return Result(status: process.terminationStatus, output: try output.contents(), errors: try errors.contents())
    }

    /// A temporary file that collects a child's output, so no pipe can fill up.
    private final class TemporaryFile {
        let url: URL
        let handle: FileHandle

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-varlink-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            handle = try FileHandle(forWritingTo: url)
        }

        func contents() throws -> String {
            String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }

        deinit {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
        }
    }
}
