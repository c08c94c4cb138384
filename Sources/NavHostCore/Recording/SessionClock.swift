/// The `HostServices.clock` the daemon lends every feature: the continuous clock, except in the work of a session
/// that replays a recording, where it is that session's virtual clock (``SessionContext/now``): sleeps end at once
/// and `measure` reads what was slept.
public struct SessionClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    public init() {}

    public var now: Instant { SessionContext.current?.now ?? .now }

    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        if let context = SessionContext.current {
            try await context.sleep(until: deadline)
        } else {
            try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
        }
    }
}
