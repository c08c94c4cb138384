public import Logging

/// Chooses and builds the log handler for a process that may run under systemd.
///
/// ```swift
/// LoggingSystem.bootstrap(SystemdLogging.handlerFactory(), metadataProvider: nil)
/// ```
public enum SystemdLogging {
    /// A factory for `LoggingSystem.bootstrap(_:metadataProvider:)`: ``JournaldLogHandler`` when
    /// ``JournalDetection`` picks the journal, ``StderrLogHandler`` otherwise.
    ///
    /// All journal handlers share one ``JournalSocket``. If that socket cannot be created, standard error is used.
    ///
    /// - Parameters:
    ///   - destination: Where to log; decided by ``JournalDetection/destination(journalStream:standardError:journalSocketPath:)``
    ///     unless given.
    ///   - syslogIdentifier: The program name journald files entries under.
    ///   - threshold: The lowest level every handler writes, changeable while the process runs.
    ///   - journalSocketPath: journald's native-protocol socket.
    /// - Returns: The factory.
    public static func handlerFactory(
        destination: LogDestination = JournalDetection.destination(),
        syslogIdentifier: String = "navhostd",
        threshold: LogThreshold = LogThreshold(.info),
        journalSocketPath: String = JournalSocket.defaultPath
    ) -> @Sendable (String, Logger.MetadataProvider?) -> any LogHandler {
        let socket = destination == .journal ? try? JournalSocket(path: journalSocketPath) : nil
        return { label, metadataProvider in
            if let socket {
                var handler = JournaldLogHandler(
                    label: label,
                    socket: socket,
                    syslogIdentifier: syslogIdentifier,
                    metadataProvider: metadataProvider
                )
                handler.threshold = threshold
                return handler
            }
            var handler = StderrLogHandler(label: label, metadataProvider: metadataProvider)
            handler.threshold = threshold
            return handler
        }
    }
}
