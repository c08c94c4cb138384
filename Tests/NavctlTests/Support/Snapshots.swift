import Foundation
import IntegrationHarness
import Testing

/// Snapshot files of navctl runs, in `Tests/NavctlTests/Snapshots/NAME.txt`: the command line, the exit status,
/// standard output and standard error, each under a header line.
///
/// A run is compared with its file. `RECORD_SNAPSHOTS=1` rewrites the files from the runs instead; a file that does
/// not exist yet is written, and the test fails so that a new snapshot is always looked at before it is trusted.
enum Snapshots {
    /// The folder of the snapshot files.
    static let directory = "\(TestPaths.packageRoot)/Tests/NavctlTests/Snapshots"

    /// Compares `run` with the snapshot `name`, after replacing each key of `replacing` by its value (temporary
    /// paths by `<socket>`, say) in the command line and in everything printed.
    static func assertMatches(
        _ run: Navctl.Run,
        named name: String,
        replacing replacements: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var text = """
            $ navctl \(run.arguments.joined(separator: " "))
            --- exit status: \(run.status)
            --- stdout
            \(run.output)--- stderr
            \(run.errors)
            """
        for (original, placeholder) in replacements.sorted(by: { $0.key.count > $1.key.count }) {
            text = text.replacingOccurrences(of: original, with: placeholder)
        }
        let path = "\(directory)/\(name).txt"
        let recording = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"].map { !$0.isEmpty && $0 != "0" }
        let existing = try? String(contentsOfFile: path, encoding: .utf8)
        if recording == true || existing == nil {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            if recording != true {
                Issue.record(
                    "Recorded the new snapshot \(name).txt; check it, then run again",
                    sourceLocation: sourceLocation
                )
            }
            return
        }
        #expect(text == existing, "navctl's run differs from \(name).txt", sourceLocation: sourceLocation)
    }
}
