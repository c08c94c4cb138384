import Foundation

/// Runs programs to their end for the tests, bounded by timeouts.
package enum ChildProcess {
    package struct Result: Sendable {
        package var status: Int32
        package var output: String
        package var errors: String
    }

    /// Runs `executable` to its end and collects what it printed; kills it if it outlives `limit`.
    ///
    /// It is started as every child of the tests is (``SpawnedProcess``, ``PosixSpawn``): no descriptor of the test
    /// process but its standard output and error, which go to files so that no pipe can fill up; no signal blocked,
    /// so a program that is sent `SIGTERM` ends; and its end learnt from `waitpid` on a thread of its own, not from
    /// Foundation's `Process`, whose monitor thread one child that outlives its descriptors holds for every other.
    ///
    /// - Parameter workingDirectory: The directory it runs in; the test's own when `nil`.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        workingDirectory: String? = nil,
        limit: Duration = .seconds(60)
    ) async throws -> Result {
        let output = OutputFile()
        let errors = OutputFile()
        let process = try SpawnedProcess(
            executable,
            arguments,
            output: .files(output: output.path, errors: errors.path),
            workingDirectory: workingDirectory
        )
        let status: Int32
        do {
            status = try await withTimeout(limit, "\(executable) \(arguments.joined(separator: " "))") {
                await process.waitForExit()
            }
        } catch {
            process.send(SIGKILL)
            throw error
        }
        return Result(status: status, output: try output.contents(), errors: try errors.contents())
    }

    /// A temporary file the child writes to, removed when the run ends.
    private final class OutputFile {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-child-\(UUID().uuidString)")
            .path

        func contents() throws -> String {
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        }

        deinit {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
