import Synchronization

/// What a session lends the features it runs: where their random numbers come from and what time it is.
///
/// Every piece of a feature's work that a session starts — building a screen's ViewModel, `onAppear`, an intent —
/// runs with its session's context bound to ``current``, and the ``SessionRandomSource`` and ``SessionClock`` that
/// `HostServices` holds ask it. A live session draws from the system's generator and keeps what it drew for its
/// flight recorder; a session that replays a recording hands the recorded numbers back, in order, and runs on a
/// virtual clock whose sleeps end at once. That is what makes a replay deterministic without the feature knowing.
public final class SessionContext: Sendable {
    /// The context of the session whose work runs now; `nil` outside any session (a plugin's composition root, a
    /// task a feature detached). In a screen's task (and the tasks it starts), its session's, which the task's
    /// handle carries; elsewhere the one ``bound``.
    public static var current: SessionContext? {
        if let task = ScreenTask.current { return task.context }
        return bound
    }

    /// The context bound for a session's work outside a screen's task (a ViewModel's composition root), and where
    /// no screen's task runs (tests).
    @TaskLocal public static var bound: SessionContext?

    private struct State {
        var drawn: [UInt64] = []
        var script: [UInt64] = []
        var nextScripted = 0
        var virtualElapsed: Duration = .zero
    }

    private let state = Mutex(State())
    /// Whether the session replays a recording: random numbers come from the script, time is virtual.
    public let isReplaying: Bool
    private let virtualStart = ContinuousClock.now

    /// A live session's context: system random numbers, kept for the flight recorder, and real time.
    public init() {
        isReplaying = false
    }

    /// A replaying session's context: `script` is handed out in order (the system's generator takes over once it is
    /// spent), and time is virtual.
    public init(replaying script: [UInt64]) {
        isReplaying = true
        state.withLock { $0.script = script }
    }

    /// The next random number: the script's next one when replaying, otherwise the system's, which is kept.
    public func nextRandom() -> UInt64 {
        state.withLock { state in
            if isReplaying, state.nextScripted < state.script.count {
                defer { state.nextScripted += 1 }
                return state.script[state.nextScripted]
            }
            var generator = SystemRandomNumberGenerator()
            let value = generator.next()
            if !isReplaying { state.drawn.append(value) }
            return value
        }
    }

    /// The numbers drawn since the last call, oldest first; the flight recorder files them with the call they
    /// belong to.
    public func takeDrawn() -> [UInt64] {
        state.withLock { state in
            defer { state.drawn.removeAll(keepingCapacity: true) }
            return state.drawn
        }
    }

    /// How many scripted numbers were not used, so a replay can tell that the features drew less than recorded.
    public var unusedScript: Int {
        state.withLock { $0.script.count - $0.nextScripted }
    }

    // MARK: Time

    /// The time now: real for a live session; for a replaying one, the moment it started plus what it slept.
    public var now: ContinuousClock.Instant {
        guard isReplaying else { return .now }
        return virtualStart.advanced(by: state.withLock { $0.virtualElapsed })
    }

    /// Sleeps until `deadline`: really for a live session; for a replaying one, moves virtual time on to it and only
    /// yields, so a recorded delay costs the replay nothing.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        guard isReplaying else {
            try await ContinuousClock().sleep(until: deadline)
            return
        }
        let target = virtualStart.duration(to: deadline)
        state.withLock { state in state.virtualElapsed = max(state.virtualElapsed, target) }
        try Task.checkCancellation()
        await Task.yield()
    }
}
