/// How a session behaves under load and when ViewModels misbehave.
public struct SessionOptions: Sendable {
    /// How many recent events are kept for watchers that resume.
    public var eventHistory: Int = 1024
    /// How many undelivered updates a watcher holds before it coalesces.
    public var watcherLimit: Int = 256
    /// How long an intent may take before the client gets `IntentTimedOut`, its work is cancelled and the screen
    /// shows an error; `nil` for no limit.
    public var intentTimeLimit: Duration? = .seconds(30)
    /// The clock the time limit is measured with.
    public var clock: any Clock<Duration> = ContinuousClock()

    public init() {}
}
