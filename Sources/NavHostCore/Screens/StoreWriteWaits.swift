import Logging

/// The callers of intents answered `IntentTimedOut`, or whose screen another call closed or a reload or take-back rebuilt
/// (before the intent's delivery to the rebuilt screen), each waiting for the store writes its intent's work had under
/// way then (`Screen.startUntilClosed`), across every session of a registry: the
/// daemon's stop ends them all, begun before it or after, whichever session they belong to (one since closed by
/// `CloseSession`, dropped by a reload, or handed over by a replay too), once a grace has passed: a write that ends
/// within it lands before its reply, as it would have without the stop, and one that never ends (a feature's `update`
/// transform that does not return) cannot hold the stop longer.
@MainActor
final class StoreWriteWaits {
    // MARK: Private Properties

    /// The tasks whose callers wait now, by identity.
    private var waiting: [ObjectIdentifier: ScreenTask] = [:]
    /// Whether the stop ended the waits: one that begins afterwards ends at once.
    private var areEnded = false
    /// Whether the stop's grace has begun (``endAll(after:)``).
    private var isEnding = false
    /// Where a wait that begins with a write under way is noted: a reply held by a write that does not end is
    /// otherwise invisible to the operator.
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    // MARK: Public Functions

    /// Returns once no store write that `task`'s work had under way when its intent timed out or its screen closed is
    /// under way, once the time limit of a closed screen's intent has run out, or once the daemon stops, whichever
    /// comes first. `reason` names what waits (the reply, or the intent's delivery to its rebuilt screen), for the log.
    func storeWritesEnded(of task: ScreenTask, before reason: String) async {
        if areEnded {
            task.endWaitForStoreWritesAsTheDaemonStops()
        } else if task.hasStoreWritesUnderWay {
            logger.info(
                "Waiting for the store writes an intent's work has under way",
                metadata: ["navhost.screen": "\(task.screenID)", "navhost.waiting": "\(reason)"]
            )
        }
        let key = ObjectIdentifier(task)
        waiting[key] = task
        await task.storeWritesEnded()
        waiting[key] = nil
    }

    /// Ends every wait once `grace` has passed, and every one that begins after that at once: the daemon is stopping.
    /// Until then the waits go on, those the stop's own closes begin too, so that a write under way that ends within
    /// the grace is on disk before the reply that waits for it.
    func endAll(after grace: Duration) {
        guard !isEnding else { return }
        isEnding = true
        Task { [weak self] in
            try? await Task.sleep(for: grace)
            self?.endAll()
        }
    }

    /// Ends every wait, now and from now on.
    func endAll() {
        areEnded = true
        let tasks = waiting.values
        waiting.removeAll()
        for task in tasks { task.endWaitForStoreWritesAsTheDaemonStops() }
    }
}
