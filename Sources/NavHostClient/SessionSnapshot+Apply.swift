public import NavHostWire

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
}
