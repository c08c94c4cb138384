import ArgumentParser
import NavHostCommandLine
import NavHostCore
import NavHostVarlink

/// The limits that protect the daemon from its clients, on the command line. Each has a default that suits a device
/// with a handful of front ends (``LimitSettings``); a limit given here overrides the configuration file's `limits`.
/// Past each one a client gets a clear error reply or its connection is closed; the daemon and its other clients go
/// on. `docs/robustness.md` has the table.
struct LimitOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The largest message a client may send, in bytes; K and M mean KiB and MiB. A larger one closes the connection, before any of it is parsed. (default: 1M)",
            valueName: "size"
        ),
        transform: ByteCount.parse
    )
    var maxMessageSize: ByteCount?

    @Option(
        help: ArgumentHelp(
            "How many bytes of unfinished messages (begun, their NUL not arrived yet) the daemon holds for all clients together; K and M mean KiB and MiB. Past it, the connections holding the most are closed, largest first, until the rest fit. At least --max-message-size, which raises the default when it is larger. (default: 16M)",
            valueName: "size"
        ),
        transform: ByteCount.parse
    )
    var maxUnfinishedTotal: ByteCount?

    @Option(
        help: ArgumentHelp(
            "How deep arrays and objects may nest in a message. Deeper closes the connection. (default: 64)",
            valueName: "depth"
        )
    )
    var maxJSONDepth: Int?

    @Option(
        help: ArgumentHelp(
            "How many clients are served at once. Connections past it are closed as soon as they are accepted. Lowered, with a warning, when the file descriptor limit cannot be raised to cover it. (default: 4096)",
            valueName: "count"
        )
    )
    var maxConnections: Int?

    @Option(
        name: .customLong("max-connections-per-uid"),
        help: ArgumentHelp(
            "How many clients of one user ID are served at once. Connections past it are closed as soon as they are accepted. (default: 1024)",
            valueName: "count"
        )
    )
    var maxConnectionsPerUID: Int?

    @Option(
        help: ArgumentHelp(
            "How many of --max-connections only control users (root, the daemon's user, --control-uid, --control-group) may take, so that other users can never lock an operator out. (default: 64)",
            valueName: "count"
        )
    )
    var reservedConnections: Int?

    @Option(
        help: ArgumentHelp(
            "How many calls of one connection may be received but not yet answered. Past it the daemon stops reading from that client until its replies have gone out (back pressure; nothing is lost). (default: 64)",
            valueName: "count"
        )
    )
    var maxPendingCalls: Int?

    @Option(
        help: ArgumentHelp(
            "How many updates a Watch holds for a client that reads slowly. Past it they are coalesced into one snapshot, each time the queue fills; a client that stops reading is --send-timeout's. (default: 256)",
            valueName: "count"
        )
    )
    var watchQueueLimit: Int?

    @Option(
        help: ArgumentHelp(
            "How long a client may take to finish a message it has started (like 10s or 500ms). Then its connection is closed. (default: 10s)",
            valueName: "time"
        ),
        transform: TimeLimit.parse
    )
    var partialMessageTimeout: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "How long replies may back up for a client that has stopped reading (like 30s). Then its connection is closed. (default: 30s)",
            valueName: "time"
        ),
        transform: TimeLimit.parse
    )
    var sendTimeout: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "How long a connection may stay idle, with no call received, running or unanswered (a Watch is running; replies backed up are --send-timeout's), before it is closed (like 5m, or off). (default: 5m)",
            valueName: "time"
        ),
        transform: TimeLimit.parse
    )
    var idleTimeout: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "How long a stop (SIGTERM) waits for clients to receive their last replies before closing their connections (like 10s). Keep it under the unit's TimeoutStopSec=. (default: 10s)",
            valueName: "time"
        ),
        transform: TimeLimit.parse
    )
    var shutdownTimeout: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "How many screens a session's stack may hold, modal ones included. A push past it is refused with StackTooDeep. (default: 64)",
            valueName: "count"
        )
    )
    var maxStackDepth: Int?

    @Option(
        help: ArgumentHelp(
            "How long an intent may run (like 30s, or off). Then it is cancelled (navigation it asks for later is dropped), the client gets IntentTimedOut and the screen shows an error. (default: 30s)",
            valueName: "time"
        ),
        transform: TimeLimit.parse
    )
    var intentTimeout: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "How long plugin code may hold the main thread without yielding (like 10s, or off). Then the daemon names the plugin, exits with status 70 so that systemd restarts it, and keeps that plugin quarantined until its library changes. Keep it under half the unit's WatchdogSec=, the time between its pings; under a debugger, set it to off. (default: 10s)",
            valueName: "time"
        ),
        transform: TimeLimit.parse
    )
    var stallLimit: TimeLimit?

    @Option(
        help: ArgumentHelp(
            "How many of its last calls each session's flight recorder keeps, with their outcome and the stack each left, for navctl record and navctl replay; 0 keeps none. A session opened before a change keeps its size until a restart. (default: 256)",
            valueName: "count"
        )
    )
    var flightRecorderCalls: Int?

    @Option(
        help: ArgumentHelp(
            "How long the event loop keeps polling for the next message after a read from a client before it sleeps (like 300us, 1ms, or off; at most 1s). A client that answers a reply within it is read without a wake-up from sleep, which on a virtual machine whose idle CPUs halt costs tens of microseconds per call; the daemon spends up to this much CPU after each read (up to 2 ms while a call's reply waits for its durable write), and the session writer polls as long for the next session to write after each write a call waited on; nothing when no client writes. Nothing polls when the daemon may use only one CPU. Set it to off where power matters more than latency. (default: 300us)",
            valueName: "time"
        ),
        transform: TimeLimit.parseMicroseconds
    )
    var busyPoll: TimeLimit?

    func validate() throws {
        if let problem = settings.firstProblem(crossChecking: false) {
            throw ValidationError("--\(problem.key) \(problem.message)")
        }
    }

    /// The limits given on the command line; the others are left to the configuration file or the defaults.
    var settings: LimitSettings {
        LimitSettings(
            maxMessageSize: maxMessageSize?.bytes,
            maxUnfinishedTotal: maxUnfinishedTotal?.bytes,
            maxJSONDepth: maxJSONDepth,
            maxConnections: maxConnections,
            maxConnectionsPerUID: maxConnectionsPerUID,
            reservedConnections: reservedConnections,
            maxPendingCalls: maxPendingCalls,
            watchQueueLimit: watchQueueLimit,
            partialMessageTimeout: partialMessageTimeout,
            sendTimeout: sendTimeout,
            idleTimeout: idleTimeout,
            shutdownTimeout: shutdownTimeout,
            maxStackDepth: maxStackDepth,
            intentTimeout: intentTimeout,
            stallLimit: stallLimit,
            flightRecorderCalls: flightRecorderCalls,
            busyPoll: busyPoll
        )
    }
}

/// A size in bytes on the command line: `1048576`, `64K`, `1M` (K and M are binary: KiB, MiB).
struct ByteCount: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var bytes: Int

    init(_ bytes: Int) {
        self.bytes = bytes
    }

    init?(argument: String) {
        var text = argument.uppercased()
        for suffix in ["IB", "B"] where text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        var multiplier = 1
        if text.hasSuffix("K") {
            multiplier = 1 << 10
        } else if text.hasSuffix("M") {
            multiplier = 1 << 20
        }
        if multiplier > 1 { text.removeLast() }
        guard let number = Int(text), number >= 0 else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        self.bytes = bytes
    }

    /// ``init(argument:)`` for `@Option(transform:)`: a refusal says what a size looks like.
    static func parse(_ argument: String) throws -> ByteCount {
        guard let count = ByteCount(argument: argument) else {
            throw ValidationError("\"\(argument)\" is not a size like 1048576, 64K or 1M")
        }
        return count
    }

    var description: String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20)M" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10)K" }
        return "\(bytes)"
    }
}
