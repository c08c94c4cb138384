import NavHostStorage

// A session a reload (or a plugin that loads) opens under a name whose earlier session's writes are still under way:
// it opens once they land, from what they left in the file.

extension SessionRegistry {
    /// Opens the session `configuration` declares as ``open(_:options:)`` does — restored from its file, or at its
    /// root — unless a record of an earlier session of the name is being written or waits to be, or the file of one
    /// closed may hold a failed write (``settleClosedSessions()``), a write that began after its close among them:
    /// then it opens nothing and returns `nil`. The name is busy (``isBusy(_:)``) until those writes land or fail, and
    /// the closed session's last write is settled; then the configuration's sessions and the listed ones are opened
    /// again (``openConfiguredSessions``, ``openListedSessions()``), which opens it from what the file holds then,
    /// unless the name is no longer declared nor listed, or the daemon is stopping. A call that names it meanwhile is
    /// answered `SessionNotFound`, with a reason that says it is opening.
    ///
    /// For the daemon's opens that are not an `OpenSession` (which waits for every queued write itself): read while
    /// such a write was under way, the file lacked its change, which was answered done once it landed, and the new
    /// session's first record wrote over it; a restart had lost it. And read before the closed session's last write,
    /// the file held a change its callers were answered `StorageFailed` for, which the new session opened with.
    ///
    /// - Throws: What ``open(_:options:)`` throws.
    @discardableResult
    public func openOnceEarlierWritesLand(
        _ configuration: SessionConfiguration,
        options: SessionOptions = SessionOptions()
    ) throws(NavigationError) -> NavigationSession? {
        let name = configuration.name
        if let existing = try? session(name) { return existing }
        guard let persistence,
            persistence.isWriting(name) || closedUnsettled[name] != nil || closedSessionMayHoldFailedWrite(name) != nil
        else {
            return try open(configuration, options: options)
        }
        guard namesAwaitingEarlierWrites.insert(name).inserted else { return nil }
        Task { [backlink] in
            await persistence.writesLand(of: name)
            guard let registry = backlink.owner else { return }
            // A write that began after the session closed and failed, whose caller has not taken it back yet (and
            // kept the session for the settle then): the name waits for that session's last write all the same.
            if let closed = registry.closedSessionMayHoldFailedWrite(name) { registry.keepForTheSettle(closed) }
            // A write that failed may have left its refused change in the file: the closed session's last write, its
            // change taken back, is written over it first (``settleClosedSessions()``, bounded).
            if registry.closedUnsettled[name] != nil { await registry.settleClosedSessions() }
            registry.namesAwaitingEarlierWrites.remove(name)
            // In this stretch of the main actor, with the look at the writes: a call of the closed session still under
            // way may have queued a record since they landed, and then the name waits again.
            registry.openConfiguredSessions?()
            registry.openListedSessions()
        }
        return nil
    }
}
