/// How a session behaves under load and when ViewModels misbehave.
public struct SessionOptions: Sendable {
    /// How many recent events are kept for watchers that resume.
    public var eventHistory: Int = 1024
    /// How many undelivered updates a watcher holds before it coalesces.
    public var watcherLimit: Int = 256
    /// How long an intent may take before the client gets `IntentTimedOut`, its work is cancelled and the screen
    /// shows an error; `nil` for no limit.
    public var intentTimeLimit: Duration? = .seconds(30)
    /// The most screens a stack may hold, modal ones included; a push past it (or a replace with more) is refused
    /// with `StackTooDeep`. It bounds what a runaway client or a ViewModel that navigates in a loop can make the
    /// daemon hold and save.
    public var maxStackDepth: Int = 64
    /// How many calls the session's flight recorder holds (``NavigationSession/recording``); 0 records nothing.
    public var flightRecorderCalls: Int = 256
    /// The folder a session's flight recording is also written to as it is made (``FlightRecorderFile``); `nil` keeps
    /// it in memory only.
    public var flightRecorderDirectory: String?
    /// The random numbers a session that replays a recording hands its features, in order; `nil` for a live session
    /// (``SessionContext``).
    public var replaying: [UInt64]?
    /// The clock the time limit is measured with.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Where the callers of intents answered `IntentTimedOut`, or whose screen another call closed or a rebuild took
    /// over, wait for the store writes under way then (``StoreWriteWaits``): set by the registry that opens the session
    /// (and kept when its options are updated), shared by all its sessions, so that the registry's stop ends every such
    /// wait. `nil` for a session made without a registry (`FeatureTestHost`'s, a test's own), whose callers wait on the
    /// task itself: until the writes end, or for a closed screen's caller its intent's time limit if sooner; nothing
    /// else ends them.
    var storeWriteWaits: StoreWriteWaits?

    public init() {}
}
