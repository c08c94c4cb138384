import Glibc
public import Logging

/// A swift-log handler that writes lines to standard error: for systemd with `sd-daemon.h`'s `<N>` priority prefix,
/// for a person at a terminal with the time and the level's name.
///
/// ``Style/prefixed`` is the format systemd reads from a service's standard error (`SyslogLevelPrefix=yes`, the
/// default): each line starts with its syslog priority, so a multi-line message keeps its level on every line.
/// ``Style/readable`` starts the message's first line with the local time and the level, and indents the others.
/// In both, metadata follows the message's last line as `key=value`, sorted by key:
///
/// ```
/// <6>Plugin loaded navhost.plugin=Weather version=1.2.0
/// 2026-11-25T20:10:42.318+0000 info     Plugin loaded navhost.plugin=Weather version=1.2.0
/// ```
///
/// Used when journald is not there (a terminal, a container, a pipe); ``JournalDetection`` decides. The style follows
/// the descriptor unless given: readable on a terminal, prefixed otherwise.
public struct StderrLogHandler: LogHandler {
    /// How lines are written.
    public enum Style: Sendable, Hashable {
        /// `<N>` before every line, for systemd and for programs that read the daemon's output.
        case prefixed
        /// The local time and the level's name, for a person at a terminal.
        case readable

        /// The style for `fileDescriptor`: ``readable`` when it is a terminal, ``prefixed`` otherwise.
        public static func forDescriptor(_ fileDescriptor: Int32) -> Style {
            isatty(fileDescriptor) == 1 ? .readable : .prefixed
        }
    }

    // MARK: - Private Properties

    private let fileDescriptor: Int32

    // MARK: - Public Properties

    /// The logger's label.
    public let label: String
    /// The handler's own metadata, written with every line.
    public var metadata: Logger.Metadata = [:]
    /// Metadata taken from the task at each event.
    public var metadataProvider: Logger.MetadataProvider?
    /// The lowest level written: the shared ``threshold``'s when there is one and this handler's level was not set.
    public var logLevel: Logger.Level {
        get { ownLevel ?? threshold?.level ?? .info }
        set { ownLevel = newValue }
    }
    /// The process-wide level this handler follows until its own is set.
    public var threshold: LogThreshold?
    private var ownLevel: Logger.Level?
    /// How lines are written.
    public let style: Style

    // MARK: - Initialization

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - fileDescriptor: Where lines go: standard error unless a test passes a pipe.
    ///   - style: How lines are written; by default ``Style/forDescriptor(_:)`` of `fileDescriptor`.
    ///   - metadataProvider: Metadata taken from the task at each event.
    public init(
        label: String,
        fileDescriptor: Int32 = 2,
        style: Style? = nil,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.fileDescriptor = fileDescriptor
        self.style = style ?? .forDescriptor(fileDescriptor)
        self.metadataProvider = metadataProvider
    }

    // MARK: - Public Functions

    /// Reads or changes one entry of the handler's own ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as lines of the handler's ``style`` in one `write(2)`.
    ///
    /// - Parameter event: The event; `Logger` has already checked its level.
    public func log(event: LogEvent) {
        var pairs = LogMetadataFlattening.pairs(handler: metadata, provider: metadataProvider, event: event.metadata)
        if let error = event.error { pairs.append(("error", String(describing: error))) }
        let text: String
        switch style {
        case .prefixed:
            text = Self.formatted(priority: event.level.syslogPriority, message: "\(event.message)", pairs: pairs)
        case .readable:
            text = Self.readable(
                time: Self.localTime(),
                level: event.level,
                message: "\(event.message)",
                pairs: pairs
            )
        }
        Self.writeAll(Array(text.utf8), to: fileDescriptor)
    }

    // MARK: - Package Functions

    /// The text for one event: every line prefixed with `<priority>`, metadata after the last line, a final newline.
    static func formatted(priority: Int, message: String, pairs: [(key: String, value: String)]) -> String {
        lines(of: message, pairs: pairs).map { "<\(priority)>\($0)\n" }.joined()
    }

    /// The text for one event for a person: `time level` before the first line (the level's name padded to the
    /// longest, `critical`), the other lines indented under the message, metadata after the last line.
    static func readable(time: String, level: Logger.Level, message: String, pairs: [(key: String, value: String)])
        -> String
    {
        let name = level.rawValue
        let head = "\(time) \(name)\(String(repeating: " ", count: max(1, 9 - name.count)))"
        let indent = String(repeating: " ", count: head.count)
        return lines(of: message, pairs: pairs).enumerated().map { index, line in
            "\(index == 0 ? head : indent)\(line)\n"
        }.joined()
    }

    /// The local time now, as `2026-11-25T20:10:42.318+0100`.
    static func localTime() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        var text = [CChar](repeating: 0, count: 40)
        let dateCount = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%S", &parts)
        var zone = [CChar](repeating: 0, count: 8)
        let zoneCount = strftime(&zone, zone.count, "%z", &parts)
        // 1,000 + milliseconds, without its leading 1: always three digits.
        let fraction = String(1_000 + now.tv_nsec / 1_000_000).dropFirst()
        let date = String(decoding: text[..<dateCount].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let offset = String(decoding: zone[..<zoneCount].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(date).\(fraction)\(offset)"
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

    /// The message's lines (a trailing newline dropped), with the metadata after the last.
    private static func lines(of message: String, pairs: [(key: String, value: String)]) -> [String] {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        let suffix = pairs.map { " \($0.key)=\(quotedIfNeeded($0.value))" }.joined()
        lines[lines.count - 1] += suffix
        return lines
    }

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
