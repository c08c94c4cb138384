import Glibc
public import Logging

/// A swift-log handler that writes lines to standard error with `sd-daemon.h`'s `<N>` priority prefix.
///
/// The format is the one systemd reads from a service's standard error (`SyslogLevelPrefix=yes`, the default):
/// each line starts with its syslog priority, so a multi-line message keeps its level on every line. Metadata
/// follows the message's last line as `key=value`, sorted by key:
///
/// ```
/// <6>Plugin loaded navhost.plugin=Weather version=1.2.0
/// ```
///
/// Used when journald is not there (a terminal, a container); ``JournalDetection`` decides.
public struct StderrLogHandler: LogHandler {
    // MARK: - Private Properties

    private let fileDescriptor: Int32

    // MARK: - Public Properties

    /// The logger's label.
    public let label: String
    /// The handler's own metadata, written with every line.
    public var metadata: Logger.Metadata = [:]
    /// Metadata taken from the task at each event.
    public var metadataProvider: Logger.MetadataProvider?
    /// The lowest level written.
    public var logLevel: Logger.Level = .info

    // MARK: - Initialization

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - fileDescriptor: Where lines go: standard error unless a test passes a pipe.
    ///   - metadataProvider: Metadata taken from the task at each event.
    public init(label: String, fileDescriptor: Int32 = 2, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.fileDescriptor = fileDescriptor
        self.metadataProvider = metadataProvider
    }

    // MARK: - Public Functions

    /// Reads or changes one entry of the handler's own ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as `<N>`-prefixed lines in one `write(2)`.
    ///
    /// - Parameter event: The event; `Logger` has already checked its level.
    public func log(event: LogEvent) {
        var pairs = LogMetadataFlattening.pairs(handler: metadata, provider: metadataProvider, event: event.metadata)
        if let error = event.error { pairs.append(("error", String(describing: error))) }
        let text = Self.formatted(priority: event.level.syslogPriority, message: "\(event.message)", pairs: pairs)
        Self.writeAll(Array(text.utf8), to: fileDescriptor)
    }

    // MARK: - Package Functions

    /// The text for one event: every line prefixed with `<priority>`, metadata after the last line, a final newline.
    static func formatted(priority: Int, message: String, pairs: [(key: String, value: String)]) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        let suffix = pairs.map { " \($0.key)=\(quotedIfNeeded($0.value))" }.joined()
        lines[lines.count - 1] += suffix
        return lines.map { "<\(priority)>\($0)\n" }.joined()
    }

    /// Writes all of `bytes`, retrying on `EINTR` and short writes; gives up silently on other errors, as a log
    /// handler has nowhere left to report them.
    static func writeAll(_ bytes: [UInt8], to fileDescriptor: Int32) {
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let written = write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    // MARK: - Private Functions

    /// A value as written after `key=`: quoted when it holds a space, a quote or a newline, so lines stay parsable.
    private static func quotedIfNeeded(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "\n" }) else { return value }
        let escaped = value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
            .replacingAll("\n", with: "\\n")
        return "\"\(escaped)\""
    }
}

// MARK: - String

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
