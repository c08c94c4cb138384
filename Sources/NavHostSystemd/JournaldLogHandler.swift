public import Logging

/// A swift-log handler that sends structured entries to journald in its native protocol.
///
/// Each event becomes one journal entry with these fields:
///
/// | field | from |
/// |---|---|
/// | `MESSAGE` | the message; multi-line messages go in the protocol's binary form, whole |
/// | `PRIORITY` | the level, as ``Logging/Logger/Level/syslogPriority`` |
/// | `CODE_FILE`, `CODE_LINE`, `CODE_FUNC` | the call site (`CODE_FILE` is swift-log's `Module/File.swift`) |
/// | `SYSLOG_IDENTIFIER` | the program, `navhostd` unless told otherwise |
/// | `NAVHOST_LOGGER` | the logger's label |
/// | `NAVHOST_PLUGIN`, `NAVHOST_SESSION`, `NAVHOST_ROUTE`, `NAVHOST_CLIENT_PID` | the ``NavHostLogMetadataKey`` metadata |
/// | `ERROR` | the event's error, when it has one |
/// | any other metadata | its key upper-cased and sanitized (``JournalField/sanitizedName(forKey:)``) |
///
/// Metadata never replaces the handler's own fields: a key that would (like `message`) is written as
/// `META_MESSAGE`. Metadata comes from the handler, then its metadata provider, then the event; the later wins a
/// key.
///
/// If journald cannot be reached, the line goes to standard error in ``StderrLogHandler``'s format instead, so it
/// is not lost.
///
/// ```swift
/// let socket = try JournalSocket()
/// LoggingSystem.bootstrap { label in JournaldLogHandler(label: label, socket: socket) }
/// ```
public struct JournaldLogHandler: LogHandler {
    // MARK: - Private Properties

    private let socket: JournalSocket
    private let fallbackFileDescriptor: Int32

    /// The fields the handler writes itself; metadata may not take their names.
    private static let ownFieldNames: Set<String> = [
        "MESSAGE", "PRIORITY", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "SYSLOG_IDENTIFIER", "NAVHOST_LOGGER", "ERROR",
    ]

    // MARK: - Public Properties

    /// The logger's label, sent as `NAVHOST_LOGGER`.
    public let label: String
    /// The program name, sent as `SYSLOG_IDENTIFIER`.
    public let syslogIdentifier: String
    /// The handler's own metadata, sent with every entry.
    public var metadata: Logger.Metadata = [:]
    /// Metadata taken from the task at each event.
    public var metadataProvider: Logger.MetadataProvider?
    /// The lowest level sent: the shared ``threshold``'s when there is one and this handler's level was not set.
    public var logLevel: Logger.Level {
        get { ownLevel ?? threshold?.level ?? .info }
        set { ownLevel = newValue }
    }
    /// The process-wide level this handler follows until its own is set.
    public var threshold: LogThreshold?
    private var ownLevel: Logger.Level?

    // MARK: - Initialization

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - socket: The journal's socket; share one among all handlers.
    ///   - syslogIdentifier: The program name journald files the entries under.
    ///   - metadataProvider: Metadata taken from the task at each event.
    ///   - fallbackFileDescriptor: Where entries go when journald cannot take them: standard error by default.
    public init(
        label: String,
        socket: JournalSocket,
        syslogIdentifier: String = "navhostd",
        metadataProvider: Logger.MetadataProvider? = nil,
        fallbackFileDescriptor: Int32 = 2
    ) {
        self.label = label
        self.socket = socket
        self.syslogIdentifier = syslogIdentifier
        self.metadataProvider = metadataProvider
        self.fallbackFileDescriptor = fallbackFileDescriptor
    }

    // MARK: - Public Functions

    /// Reads or changes one entry of the handler's own ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Sends `event` to journald as one entry; writes it to the fallback descriptor if journald cannot take it.
    ///
    /// - Parameter event: The event; `Logger` has already checked its level.
    public func log(event: LogEvent) {
        let pairs = LogMetadataFlattening.pairs(handler: metadata, provider: metadataProvider, event: event.metadata)
        let entry = self.entry(for: event, metadata: pairs)
        do {
            try socket.send(entry)
        } catch {
            var fallbackPairs = pairs
            if let eventError = event.error { fallbackPairs.append(("error", String(describing: eventError))) }
            let text = StderrLogHandler.formatted(
                priority: event.level.syslogPriority,
                message: "\(event.message)",
                pairs: fallbackPairs
            )
            StderrLogHandler.writeAll(Array(text.utf8), to: fallbackFileDescriptor)
        }
    }

    // MARK: - Package Functions

    /// The journal entry for `event`, with `metadata` already merged and flattened.
    func entry(for event: LogEvent, metadata: [(key: String, value: String)]) -> JournalEntry {
        var fields = [
            JournalField(trustedName: "MESSAGE", value: "\(event.message)"),
            JournalField(trustedName: "PRIORITY", value: "\(event.level.syslogPriority)"),
            JournalField(trustedName: "CODE_FILE", value: event.file),
            JournalField(trustedName: "CODE_LINE", value: "\(event.line)"),
            JournalField(trustedName: "CODE_FUNC", value: event.function),
            JournalField(trustedName: "SYSLOG_IDENTIFIER", value: syslogIdentifier),
            JournalField(trustedName: "NAVHOST_LOGGER", value: label),
        ]
        if let error = event.error {
            fields.append(JournalField(trustedName: "ERROR", value: String(describing: error)))
        }
        for (key, value) in metadata {
            guard let name = Self.fieldName(forKey: key), let field = JournalField(name: name, value: value) else {
                continue
            }
            fields.append(field)
        }
        return JournalEntry(fields: fields)
    }

    // MARK: - Private Functions

    private static func fieldName(forKey key: String) -> String? {
        if let dedicated = NavHostLogMetadataKey.journalFields[key] { return dedicated }
        guard let name = JournalField.sanitizedName(forKey: key) else { return nil }
        guard ownFieldNames.contains(name) else { return name }
        return String("META_\(name)".prefix(JournalField.maximumNameLength))
    }
}
