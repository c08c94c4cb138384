/// The logger a feature writes to: `HostServices.logger`, handed to repositories and ViewModels through their `init`.
///
/// It is the SDK's own type, so a plugin built against this SDK never depends on the layout of a logging package's
/// types: the daemon decides where entries go (journald under systemd, stderr on a terminal) through the
/// ``FeatureLogHandler`` it installs.
///
/// Log fixed, greppable messages and put the particulars in metadata:
///
/// ```swift
/// logger.error("orders.saveFailed", metadata: ["error": "\(error)"])
/// logger.debug("orders.loaded", metadata: ["count": "\(orders.count)"])
/// ```
///
/// A message or metadata below the handler's level is never built.
public struct FeatureLogger: Sendable {
    // MARK: Public Types

    /// How severe an entry is, from least to most; the levels of syslog and swift-log.
    public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: return "trace"
            case .debug: return "debug"
            case .info: return "info"
            case .notice: return "notice"
            case .warning: return "warning"
            case .error: return "error"
            case .critical: return "critical"
            }
        }
    }

    /// Particulars of an entry, by name.
    public typealias Metadata = [String: String]

    // MARK: Public Properties

    /// Metadata added to every entry, like `navhost.plugin: Orders`; an entry's own metadata wins over it.
    public var metadata: Metadata

    // MARK: Private Properties

    private let handler: any FeatureLogHandler

    // MARK: Initialization

    /// Creates a logger that hands its entries to `handler`.
    public init(handler: any FeatureLogHandler, metadata: Metadata = [:]) {
        self.handler = handler
        self.metadata = metadata
    }

    /// A logger that discards everything, for previews and unit tests.
    public static var silent: FeatureLogger { FeatureLogger(handler: DiscardingLogHandler()) }

    // MARK: Public Functions

    /// The metadata value named `key`.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether an entry at `level` would be recorded.
    public func isEnabled(_ level: Level) -> Bool { level >= handler.level }

    /// Records `message` at `level`, unless the handler's level is above it.
    public func log(
        level: Level,
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        guard isEnabled(level) else { return }
        let own = metadata()
        let merged = own.isEmpty ? self.metadata : self.metadata.merging(own) { _, entry in entry }
        handler.log(
            FeatureLogEntry(
                level: level,
                message: message(),
                metadata: merged,
                file: file,
                function: function,
                line: line
            )
        )
    }

    /// Records a step worth seeing only while tracing a problem.
    public func trace(
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(level: .trace, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records something a developer may want while debugging.
    public func debug(
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(level: .debug, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records a normal event.
    public func info(
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(level: .info, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records a normal but significant event.
    public func notice(
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(level: .notice, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records something unexpected that the feature worked around.
    public func warning(
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(level: .warning, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records a failure: something the user asked for did not happen.
    public func error(
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(level: .error, message(), metadata: metadata(), file: file, function: function, line: line)
    }

    /// Records a failure that leaves the feature unusable.
    public func critical(
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        log(level: .critical, message(), metadata: metadata(), file: file, function: function, line: line)
    }
}

/// One entry of a ``FeatureLogger``, as its handler receives it.
public struct FeatureLogEntry: Sendable, Hashable {
    /// How severe the entry is.
    public var level: FeatureLogger.Level
    /// The message, like `orders.saveFailed`.
    public var message: String
    /// The logger's metadata with the entry's own on top.
    public var metadata: FeatureLogger.Metadata
    /// Where the entry was written: the file (`#fileID`), the function and the line.
    public var file: String
    public var function: String
    public var line: UInt

    public init(
        level: FeatureLogger.Level,
        message: String,
        metadata: FeatureLogger.Metadata,
        file: String,
        function: String,
        line: UInt
    ) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.file = file
        self.function = function
        self.line = line
    }
}

/// Where a ``FeatureLogger``'s entries go: the daemon's log, a test's record, or nowhere.
public protocol FeatureLogHandler: Sendable {
    /// The least severe level recorded; entries below it are never built.
    var level: FeatureLogger.Level { get }

    /// Records `entry`.
    func log(_ entry: FeatureLogEntry)
}

/// Discards every entry.
private struct DiscardingLogHandler: FeatureLogHandler {
    var level: FeatureLogger.Level { .critical }
    func log(_ entry: FeatureLogEntry) {}
}
