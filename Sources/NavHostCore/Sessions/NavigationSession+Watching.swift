public import NavHostWire

// Watchers: a snapshot, then one event per revision; and the observers that hear of a change first.

extension NavigationSession {
    /// Starts a watcher: a snapshot first, or, when resuming from `revision`, the events after it if they are
    /// still held and fit in the watcher's queue (``SessionOptions/watcherLimit``; else a snapshot); then one event
    /// per revision.
    public func watch(from resumeRevision: UInt64? = nil) -> SessionWatcher {
        let first: SessionWatcher.Update
        var missed: [SessionEvent] = []
        // Resuming needs every event after `resumeRevision`; while changes wait for the disk, some are not in the
        // log yet, so the watcher starts from a snapshot instead (which shows them). More than its queue holds would
        // coalesce as they are queued — into a snapshot followed by the older events still to queue — or end it as
        // too slow before it read anything: a snapshot stands in for them from the start.
        if let resumeRevision, unreleased.isEmpty, let held = log.events(after: resumeRevision, current: revision),
            held.count <= options.watcherLimit
        {
            missed = held
            first = missed.isEmpty ? .snapshot(snapshot, coalesced: false) : .event(missed.removeFirst())
        } else {
            first = .snapshot(snapshot, coalesced: false)
        }
        let watcher = SessionWatcher(limit: options.watcherLimit, first: first) { [backlink] watcher in
            let id = ObjectIdentifier(watcher)
            Task { @MainActor in backlink.owner?.watchers[id] = nil }
        }
        for event in missed { watcher.deliver(event) { snapshot } }
        watchers[ObjectIdentifier(watcher)] = AttachedWatcher(watcher, start: revision)
        return watcher
    }

    /// Calls `observer` after every change, before watchers hear of it (persistence, tests).
    public func observeChanges(_ observer: @escaping @MainActor (NavigationSession, SessionEvent) -> Void) {
        changeObservers.append(observer)
    }

    /// How many watchers are attached.
    public var watcherCount: Int { watchers.count }

    /// Sends `event` to every watcher that started before it, and keeps it for watchers that resume.
    ///
    /// A watcher that lags gets a coalesced snapshot instead: the session as it is now, which may show changes whose
    /// events are not released yet (they wait for the disk). The watcher then starts again after that snapshot's
    /// revision, so that no event it already shows follows it.
    func tellWatchers(_ event: SessionEvent) {
        log.append(event)
        for attached in watchers.values where event.revision > attached.start {
            attached.watcher.deliver(event) {
                let current = snapshot
                attached.start = current.revision
                return current
            }
        }
    }
}
