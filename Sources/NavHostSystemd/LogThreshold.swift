public import Logging
import Synchronization

/// The least severe level every handler of the process writes, which a configuration reload may change while it
/// runs: handlers made by ``SystemdLogging/handlerFactory(destination:syslogIdentifier:threshold:journalSocketPath:)``
/// read it at each event.
public final class LogThreshold: Sendable {
    private let rawLevel: Atomic<UInt8>

    /// Starts at `level`.
    public init(_ level: Logger.Level) {
        rawLevel = Atomic(Self.code(of: level))
    }

    /// The level in force.
    public var level: Logger.Level {
        get { Logger.Level.allCases[Int(rawLevel.load(ordering: .relaxed))] }
        set { rawLevel.store(Self.code(of: newValue), ordering: .relaxed) }
    }

    private static func code(of level: Logger.Level) -> UInt8 {
        UInt8(Logger.Level.allCases.firstIndex(of: level) ?? 2)
    }
}
