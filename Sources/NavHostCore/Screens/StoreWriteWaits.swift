/// The callers of one session's intents that were given up on (timed out, or their screen closed by another call) and
/// wait for the store writes their work has under way (`Screen.startUntilClosed`): the daemon's stop ends every such
/// wait, begun before it or after, so that a write that never ends (a feature's `update` transform that never
/// returns) does not hold the stop.
@MainActor
final class StoreWriteWaits {
    // MARK: Private Properties

    /// The tasks whose callers wait, by identity.
    private var waiting: [ObjectIdentifier: ScreenTask] = [:]
    /// Whether the stop ended the waits: one that begins now ends at once.
    private var areEnded = false

    // MARK: Public Functions

    /// Returns once no store write of `task`'s work is under way, or once the stop has come.
    func storeWritesEnded(of task: ScreenTask) async {
        let key = ObjectIdentifier(task)
        if areEnded {
            task.stopWaitingForStoreWrites()
        } else {
            waiting[key] = task
        }
        await task.storeWritesEnded()
        waiting[key] = nil
    }

    /// Ends every wait, now and from now on: the daemon is stopping.
    func endAll() {
        areEnded = true
        let tasks = waiting.values
        waiting.removeAll()
        for task in tasks { task.stopWaitingForStoreWrites() }
    }
}
