public import NavHostCore

// MARK: - Following a session locally

extension SessionSnapshot {
    /// Applies one watch update: a snapshot replaces this one, an event changes it.
    ///
    /// ```swift
    /// var session = SessionSnapshot(session: "main", revision: 0, stack: [])
    /// for try await update in try await client.watch() {
    ///     session.apply(update)
    /// }
    /// ```
    public mutating func apply(_ update: NavHostWatch.Update) {
        switch update {
        case .snapshot(let snapshot, _): self = snapshot
        case .event(let event): apply(event)
        }
    }

    /// Applies one event, as the daemon applied it, and takes its revision.
    ///
    /// An event at or below the current revision is already part of this snapshot and changes nothing. Screens an
    /// event names but the stack does not hold are skipped.
    public mutating func apply(_ event: SessionEvent) {
        guard event.revision > revision else { return }
        revision = event.revision
        switch event.change {
        case .pushed(let screen):
            stack.append(screen)
        case .popped(let removed):
            let removedIDs = Set(removed)
            stack.removeAll { removedIDs.contains($0.id) }
        case .replaced(let screens):
            stack = screens
        case .stateChanged(let id, let state):
            if let index = stack.lastIndex(where: { $0.id == id }) { stack[index].state = state }
        case .errorChanged(let id, let error):
            if let index = stack.lastIndex(where: { $0.id == id }) { stack[index].error = error }
        }
    }
}
