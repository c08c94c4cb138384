public import Logging
import Synchronization

/// A bound on how often one message that clients can cause is logged: a refused call, a refused connection, a
/// connection closed for breaking the protocol. Any local user can repeat those thousands of times a second; logged
/// each time, they would fill the journal and, past journald's rate limit for the service, push out the messages
/// that matter.
///
/// At most `lines` lines go out in each `interval` for each kind (a `kind` the caller names, like the protocol rule a
/// client broke or the user refused, so that a flood of one kind does not hide another); the rest are counted, and
/// before the next line of that kind goes out, a line of its own says how many were held back (`log.suppressed`),
/// so that the count is not read as the next client's. The kinds are the caller's names (a rule, a user ID), never a
/// client's words: each keeps a small count for the life of the budget.
///
/// ```swift
/// let refusals = LogBudget()
/// refusals.log(.info, "Refused a control call", metadata: ["navhost.client.uid": "1000"], to: logger)
/// ```
public final class LogBudget: Sendable {
    /// How many lines go out in each interval.
    public let lines: Int
    /// How long an interval is.
    public let interval: Duration
    private let clock = ContinuousClock()
    private let states: Mutex<[String: State]>

    private struct State {
        var intervalStart: ContinuousClock.Instant
        var logged = 0
        var suppressed = 0
    }

    /// A budget of `lines` lines every `interval`: 10 every 10 seconds by default.
    public init(lines: Int = 10, per interval: Duration = .seconds(10)) {
        self.lines = max(lines, 1)
        self.interval = interval
        self.states = Mutex([:])
    }

    /// Logs `message` at `level` with `metadata` to `logger` when the budget of `kind` allows, with how many lines of
    /// that kind it held back before it; counts it as held back otherwise. A level `logger` does not log spends
    /// nothing.
    public func log(
        _ level: Logger.Level,
        _ message: @autoclosure () -> Logger.Message,
        metadata: @autoclosure () -> Logger.Metadata = [:],
        kind: String = "",
        to logger: Logger
    ) {
        guard logger.logLevel <= level, let suppressed = take(kind) else { return }
        let message = message()
        if suppressed > 0 {
            logger.log(
                level: level,
                "Held back \(suppressed) \(suppressed == 1 ? "line" : "lines") like the next one, over \(lines) in \(interval)",
                metadata: ["log.suppressed": "\(suppressed)", "log.kind": "\(kind)"]
            )
        }
        logger.log(level: level, message, metadata: metadata())
    }

    /// How many lines of `kind` were held back since the last one, when one may go out now; `nil` when none may.
    func take(_ kind: String) -> Int? {
        let now = clock.now
        return states.withLock { states in
            var state = states[kind] ?? State(intervalStart: now)
            if state.intervalStart.duration(to: now) >= interval {
                state.intervalStart = now
                state.logged = 0
            }
            let heldBack = state.suppressed
            let allowed = state.logged < lines
            if allowed {
                state.logged += 1
                state.suppressed = 0
            } else {
                state.suppressed += 1
            }
            states[kind] = state
            return allowed ? heldBack : nil
        }
    }
}
