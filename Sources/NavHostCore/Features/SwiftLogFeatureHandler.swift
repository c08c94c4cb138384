public import Logging
public import NavHostKit

/// Hands a feature's log entries to swift-log, so they reach the daemon's log (journald or stderr) with the
/// feature's metadata.
///
/// The SDK's ``FeatureLogger`` keeps swift-log's types out of plugins: only the daemon links swift-log.
public struct SwiftLogFeatureHandler: FeatureLogHandler {
    // MARK: Private Properties

    private let logger: Logger

    // MARK: Initialization

    /// Creates a handler that writes through `logger`.
    public init(_ logger: Logger) {
        self.logger = logger
    }

    // MARK: Public Properties

    public var level: FeatureLogger.Level { FeatureLogger.Level(logger.logLevel) }

    // MARK: Public Functions

    public func log(_ entry: FeatureLogEntry) {
        logger.log(
            level: Logger.Level(entry.level),
            Logger.Message(stringLiteral: entry.message),
            metadata: entry.metadata.mapValues { .string($0) },
            source: "navhost.plugin",
            file: entry.file,
            function: entry.function,
            line: entry.line
        )
    }
}

extension FeatureLogger {
    /// A feature logger that writes through swift-log's `logger`, with `navhost.plugin: feature` in its metadata.
    public init(swiftLog logger: Logger, feature: String) {
        self.init(handler: SwiftLogFeatureHandler(logger), metadata: ["navhost.plugin": feature])
    }
}

// MARK: - Level mapping
//
// The two level enums name the same seven levels the same way (swift-log's raw values are the SDK level's
// descriptions), so each maps to the other by name.

extension FeatureLogger.Level {
    init(_ level: Logger.Level) {
        self = Self.allCases.first { $0.description == level.rawValue } ?? .critical
    }
}

extension Logger.Level {
    init(_ level: FeatureLogger.Level) {
        self = Logger.Level(rawValue: level.description) ?? .critical
    }
}
