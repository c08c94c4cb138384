public import NavHostKit

/// The `HostServices.random` the daemon lends every feature: it draws through the context of the session whose work
/// runs (``SessionContext/current``), so a live session's draws are recorded and a replay gets them back. Outside any
/// session it is the system's generator.
public struct SessionRandomSource: RandomSource {
    public init() {}

    public func next() -> UInt64 {
        if let context = SessionContext.current { return context.nextRandom() }
        return SystemRandomSource().next()
    }
}
