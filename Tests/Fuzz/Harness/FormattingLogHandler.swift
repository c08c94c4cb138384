import Foundation
import Logging

/// Logs at every level and formats each message with its metadata: the descriptions the daemon would write at
/// `trace` level (errors, calls, peers) are built for every input, so they are fuzzed too. They are dropped unless
/// `NAVHOST_FUZZ_LOG` is set in the environment, which prints them to standard error (to see what one input does).
struct FormattingLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    private static let prints = ProcessInfo.processInfo.environment["NAVHOST_FUZZ_LOG"] != nil

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(event.level) \(event.message) \(fields)\n"
        if Self.prints {
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}
