import NavHostCommandLine
import NavHostCore
import NavHostVarlink

/// The daemon's limits as one source gives them — the command line, a configuration file — each `nil` when that
/// source says nothing of it. ``overridden(by:)`` layers sources; the defaults fill in what none gave.
///
/// The keys are the long options without their dashes, in the configuration file's `limits` too:
/// `max-connections`, `intent-timeout`, ….
struct LimitSettings: Sendable, Equatable {
    var maxMessageSize: Int?
    var maxUnfinishedTotal: Int?
    var maxJSONDepth: Int?
    var maxConnections: Int?
    var maxConnectionsPerUID: Int?
    var reservedConnections: Int?
    var maxPendingCalls: Int?
    var watchQueueLimit: Int?
    var partialMessageTimeout: TimeLimit?
    var sendTimeout: TimeLimit?
    var idleTimeout: TimeLimit?
    var shutdownTimeout: TimeLimit?
    var maxStackDepth: Int?
    var intentTimeout: TimeLimit?
    var stallLimit: TimeLimit?
    var flightRecorderCalls: Int?
    var busyPoll: TimeLimit?

    /// A limit's key and what is wrong with its value.
    struct Problem: Sendable, Equatable {
        var key: String
        var message: String
    }

    // MARK: Keys

    /// The keys of the sizes in bytes (`64K`, `1M`), each at least 1K.
    static var sizes: [(key: String, path: WritableKeyPath<LimitSettings, Int?>)] {
        [("max-message-size", \.maxMessageSize), ("max-unfinished-total", \.maxUnfinishedTotal)]
    }

    /// The keys of the counts, each with the least value it takes.
    static var counts: [(key: String, least: Int, path: WritableKeyPath<LimitSettings, Int?>)] {
        [
            ("max-json-depth", 1, \.maxJSONDepth),
            ("max-connections", 1, \.maxConnections),
            ("max-connections-per-uid", 1, \.maxConnectionsPerUID),
            ("reserved-connections", 0, \.reservedConnections),
            ("max-pending-calls", 1, \.maxPendingCalls),
            // A Watch holds at least the snapshot it starts with and one event.
            ("watch-queue-limit", 2, \.watchQueueLimit),
            ("max-stack-depth", 1, \.maxStackDepth),
            ("flight-recorder-calls", 0, \.flightRecorderCalls),
        ]
    }

    /// The keys of the time limits, each with whether it may be `off` and whether it is read to the microsecond
    /// (`200us`) rather than the millisecond.
    static var times:
        [(key: String, mayBeOff: Bool, inMicroseconds: Bool, path: WritableKeyPath<LimitSettings, TimeLimit?>)]
    {
        [
            ("partial-message-timeout", false, false, \.partialMessageTimeout),
            ("send-timeout", false, false, \.sendTimeout),
            ("idle-timeout", true, false, \.idleTimeout),
            ("shutdown-timeout", false, false, \.shutdownTimeout),
            ("intent-timeout", true, false, \.intentTimeout),
            ("stall-limit", true, false, \.stallLimit),
            ("busy-poll", true, true, \.busyPoll),
        ]
    }

    /// The longest `busy-poll`: the loop spends up to that much CPU after each read.
    static let longestBusyPoll = Duration.seconds(1)

    /// The least value of the count `key` (a session's own `max-stack-depth` takes the same).
    static func least(of key: String) -> Int {
        counts.first { $0.key == key }?.least ?? 0
    }

    /// Whether the time limit `key` may be `off` (a session's own `intent-timeout` may as the daemon's may).
    static func mayBeOff(_ key: String) -> Bool {
        times.first { $0.key == key }?.mayBeOff ?? false
    }

    /// Every key, for the configuration file's error messages.
    static var keys: [String] { sizes.map(\.key) + counts.map(\.key) + times.map(\.key) }

    // MARK: Layering

    /// These settings with every limit `later` gives in place of this one's.
    func overridden(by later: LimitSettings) -> LimitSettings {
        var merged = self
        for size in Self.sizes { merged[keyPath: size.path] = later[keyPath: size.path] ?? self[keyPath: size.path] }
        for count in Self.counts {
            merged[keyPath: count.path] = later[keyPath: count.path] ?? self[keyPath: count.path]
        }
        for time in Self.times { merged[keyPath: time.path] = later[keyPath: time.path] ?? self[keyPath: time.path] }
        return merged
    }

    // MARK: Checking

    /// The first value that makes no sense, if any: a count below its least value, a size under 1K, a time limit that
    /// may not be off; and with `crossChecking`, as many reserved connections as connections, or less room for all
    /// clients' unfinished messages than for one message (with the defaults filled in: check that on the layered
    /// settings, not on one source).
    func firstProblem(crossChecking: Bool = true) -> Problem? {
        for count in Self.counts {
            if let value = self[keyPath: count.path], value < count.least {
                return Problem(key: count.key, message: "must be at least \(count.least), not \(value)")
            }
        }
        for size in Self.sizes {
            if let value = self[keyPath: size.path], value < 1024 {
                return Problem(key: size.key, message: "must be at least 1K: a smaller one refuses ordinary calls")
            }
        }
        for time in Self.times where !time.mayBeOff {
            if let limit = self[keyPath: time.path], limit.duration == nil {
                return Problem(key: time.key, message: "cannot be off")
            }
        }
        if let window = busyPoll?.duration, window > Self.longestBusyPoll {
            return Problem(
                key: "busy-poll",
                message: "must be at most 1s, not \(TimeLimit(window)): the loop polls that long after each read"
            )
        }
        if crossChecking, reservedConnections != nil || maxConnections != nil,
            resolvedReserved >= resolvedMaxConnections
        {
            return Problem(
                key: "reserved-connections",
                message: "must be less than max-connections (\(resolvedMaxConnections)), not \(resolvedReserved)"
            )
        }
        if crossChecking, maxUnfinishedTotal != nil, resolvedUnfinishedTotal < resolvedMaxMessageSize {
            return Problem(
                key: "max-unfinished-total",
                message: "must be at least max-message-size (\(resolvedMaxMessageSize)), not "
                    + "\(resolvedUnfinishedTotal): one message that large would close its connection"
            )
        }
        return nil
    }

    // MARK: With the defaults

    /// The Varlink server's limits: what these settings give, `VarlinkServerConfiguration`'s defaults for the rest
    /// (they are the daemon's, one place for both).
    var server: VarlinkServerConfiguration {
        var configuration = VarlinkServerConfiguration()
        configuration.maxMessageSize = resolvedMaxMessageSize
        configuration.maxUnfinishedBytes = resolvedUnfinishedTotal
        configuration.maxJSONDepth = maxJSONDepth ?? configuration.maxJSONDepth
        configuration.maxConnections = resolvedMaxConnections
        configuration.maxConnectionsPerUID = maxConnectionsPerUID ?? configuration.maxConnectionsPerUID
        configuration.reservedConnections = resolvedReserved
        if let idleTimeout { configuration.idleTimeout = idleTimeout.duration }
        configuration.shutdownGracePeriod = shutdownTimeout?.duration ?? configuration.shutdownGracePeriod
        configuration.maxPendingCallsPerConnection = maxPendingCalls ?? configuration.maxPendingCallsPerConnection
        configuration.partialMessageTimeout = partialMessageTimeout?.duration ?? configuration.partialMessageTimeout
        configuration.sendTimeout = sendTimeout?.duration ?? configuration.sendTimeout
        configuration.busyPollWindow = (busyPoll ?? TimeLimit(Self.defaultBusyPoll)).duration
        return configuration
    }

    /// How sessions bound their watchers, stacks and intents, defaults filled in.
    var session: SessionOptions {
        var options = SessionOptions()
        options.watcherLimit = watchQueueLimit ?? 256
        options.intentTimeLimit = (intentTimeout ?? TimeLimit(.seconds(30))).duration
        options.maxStackDepth = maxStackDepth ?? 64
        options.flightRecorderCalls = flightRecorderCalls ?? 256
        return options
    }

    /// How long plugin code may hold the main thread; `nil` for no limit.
    var stallDuration: Duration? { (stallLimit ?? TimeLimit(.seconds(10))).duration }

    /// How long the daemon's loop polls after a read when nothing says otherwise: longer than most clients take to
    /// answer a reply with their next call on this project's VMs, and than most durable writes take, whose end
    /// resumes the call on the loop (docs/architecture.md, "Polling after a read").
    static let defaultBusyPoll = Duration.microseconds(300)

    private var resolvedMaxMessageSize: Int { maxMessageSize ?? VarlinkServerConfiguration().maxMessageSize }
    /// The room asked for, else the default, raised to a `max-message-size` larger than it.
    private var resolvedUnfinishedTotal: Int {
        maxUnfinishedTotal ?? max(VarlinkServerConfiguration().maxUnfinishedBytes, resolvedMaxMessageSize)
    }
    private var resolvedMaxConnections: Int { maxConnections ?? VarlinkServerConfiguration().maxConnections }
    /// The reserve asked for, else the default, lowered below a `max-connections` smaller than it.
    private var resolvedReserved: Int {
        reservedConnections ?? min(VarlinkServerConfiguration().reservedConnections, max(resolvedMaxConnections - 1, 0))
    }
}
