import NavHostWire

/// The most recent events of a session, so a watcher that reconnects can catch up without a full snapshot.
struct SessionEventLog {
    private var events: [SessionEvent] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        events.reserveCapacity(capacity)
    }

    mutating func append(_ event: SessionEvent) {
        if events.count < capacity {
            events.append(event)
        } else {
            events[start] = event
            start = (start + 1) % capacity
        }
    }

    /// Every event after `revision`, oldest first; `nil` when some of them are no longer held.
    func events(after revision: UInt64, current: UInt64) -> [SessionEvent]? {
        if revision == current { return [] }
        guard revision < current else { return nil }
        let ordered = Array(events[start...] + events[..<start])
        guard let first = ordered.first, first.revision <= revision + 1 else { return nil }
        return ordered.filter { $0.revision > revision }
    }
}
