/// The callers of intents whose screen another call closed, each waiting for the store writes its intent's work had
/// under way at the close (`Screen.startUntilClosed`), across every session of a registry: the daemon's stop ends
/// them all, begun before it or after, whichever session they belong to (one since closed by `CloseSession`, dropped
/// by a reload, or handed over by a replay too), so that a write that never ends (a feature's `update` transform that
/// does not return) cannot hold the stop.
@MainActor
final class StoreWriteWaits {
    // MARK: Private Properties

    /// The tasks whose callers wait now, by identity.
    private var waiting: [ObjectIdentifier: ScreenTask] = [:]
    /// Whether the stop ended the waits: one that begins afterwards ends at once.
    private var areEnded = false

    // MARK: Public Functions

    /// Returns once no store write that `task`'s work had under way at its screen's close is under way, once its time
    /// limit has run out, or once the daemon stops, whichever comes first.
    func storeWritesEnded(of task: ScreenTask) async {
        if areEnded { task.endWaitForStoreWritesAfterClose() }
        let key = ObjectIdentifier(task)
        waiting[key] = task
        await task.storeWritesEnded()
        waiting[key] = nil
    }

    /// Ends every wait, now and from now on: the daemon is stopping.
    func endAll() {
        areEnded = true
        let tasks = waiting.values
        waiting.removeAll()
        for task in tasks { task.endWaitForStoreWritesAfterClose() }
    }

    /// How many callers wait now.
    var count: Int { waiting.count }
}
