public import ArgumentParser

/// A time limit as an operator writes it, on a command line or in `navhostd.conf`: `30s`, `500ms`, `2m`, a plain
/// number of seconds (`2.5`), or `off` (also `none`) for no limit.
///
/// navhostd's time options and configuration keys and `navctl session open --intent-timeout` read times with it, so
/// each program takes what the other does.
public struct TimeLimit: ExpressibleByArgument, CustomStringConvertible, Sendable, Equatable {
    /// The limit; `nil` for none.
    public var duration: Duration?

    /// A limit of `duration`; `nil` for none.
    public init(_ duration: Duration?) {
        self.duration = duration
    }

    /// The limit `argument` spells, or `nil` when it is not one: a time of at least a millisecond (after rounding
    /// to whole milliseconds) that fits `Int64` milliseconds, or `off`.
    public init?(argument: String) {
        self.init(argument: argument, inMicroseconds: false)
    }

    /// The limit `argument` spells, to the microsecond: `200us` (or `200µs`), `0.5ms`, `1s`, or `off`; `nil` when it
    /// is not one, or is under a microsecond after rounding.
    public init?(microsecondsArgument argument: String) {
        self.init(argument: argument, inMicroseconds: true)
    }

    private init?(argument: String, inMicroseconds: Bool) {
        let text = argument.lowercased()
        if text == "off" || text == "none" {
            duration = nil
            return
        }
        var units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        if inMicroseconds { units.insert(contentsOf: [("us", 0.000_001), ("µs", 0.000_001)], at: 0) }
        let unit = units.first { text.hasSuffix($0.0) && Double(text.dropLast($0.0.count)) != nil }
        guard let seconds = Double(unit.map { String(text.dropLast($0.0.count)) } ?? text), seconds > 0,
            seconds.isFinite
        else { return nil }
        let ticksPerSecond: Double = inMicroseconds ? 1_000_000 : 1000
        let ticks = (seconds * (unit?.1 ?? 1) * ticksPerSecond).rounded()
        guard ticks >= 1, ticks < Double(Int64.max) else { return nil }
        duration = inMicroseconds ? .microseconds(Int64(ticks)) : .milliseconds(Int64(ticks))
    }

    /// ``init(argument:)`` for `@Option(transform:)`: a refusal says what a time looks like.
    public static func parse(_ argument: String) throws -> TimeLimit {
        guard let limit = TimeLimit(argument: argument) else {
            throw ValidationError("\"\(argument)\" is not a time above zero like 30s, 500ms or 2m, or off")
        }
        return limit
    }

    /// ``init(microsecondsArgument:)`` for `@Option(transform:)`.
    public static func parseMicroseconds(_ argument: String) throws -> TimeLimit {
        guard let limit = TimeLimit(microsecondsArgument: argument) else {
            throw ValidationError("\"\(argument)\" is not a time above zero like 200us, 1ms or 1s, or off")
        }
        return limit
    }

    /// The limit as it is written back: `30s`, `1500ms`, `200us`, or `off`.
    public var description: String {
        guard let duration else { return "off" }
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds)s" }
        if attoseconds % 1_000_000_000_000_000 != 0 {
            return "\(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)us"
        }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }
}
