import Glibc
import Logging
import NavHostSystemd

/// Writes two entries to journald's real socket through ``JournaldLogHandler``: a multi-line message with the
/// NavHost fields, and one too large for a datagram (it travels as a sealed memfd). Used by
/// `scripts/journald-check.sh`, which reads them back with journalctl.
enum JournalProbe {
    static func run(largeMessageBytes: Int) -> Int32 {
        let socket: JournalSocket
        do {
            socket = try JournalSocket()
        } catch {
            Output.line("\(error)")
            return 1
        }
        var logger = Logger(label: "navhost.journal-check") { label in
            JournaldLogHandler(label: label, socket: socket, syslogIdentifier: "navhost-journal-check")
        }
        logger[metadataKey: NavHostLogMetadataKey.plugin] = "Weather"
        logger[metadataKey: NavHostLogMetadataKey.session] = "s-1"
        logger.warning(
            "Route refused\nsecond line\n\nfourth line",
            metadata: [NavHostLogMetadataKey.route: "weather.detail", NavHostLogMetadataKey.clientPID: "4242"]
        )
        let large = String(repeating: "0123456789abcdef", count: largeMessageBytes / 16)
        let entry = JournalEntry(fields: [
            JournalField(name: "MESSAGE", value: large)!,
            JournalField(name: "SYSLOG_IDENTIFIER", value: "navhost-journal-check")!,
            JournalField(name: "NAVHOST_CHECK", value: "large")!,
        ])
        do {
            Output.line("large entry: \(try socket.send(entry))")
        } catch {
            Output.line("\(error)")
            return 1
        }
        return 0
    }
}
