import NavHostKit
import NavHostTesting
import Synchronization
import Testing

@testable import NavHostCore

@MainActor
@Suite("Watching a session")
struct WatcherTests {
    func makeSession(watcherLimit: Int = 256, history: Int = 1024) throws -> NavigationSession {
        let catalog = try FeatureCatalog.holding([CatalogFeature(), ProfileFeature()])
        return try NavigationSession(
            configuration: SessionConfiguration(root: RouteRequest(id: "profile.user", parameters: ["userID": "u0"])),
            catalog: catalog,
            options: {
                var options = SessionOptions()
                options.eventHistory = history
                options.watcherLimit = watcherLimit
                return options
            }(),
            logger: .init(label: "test")
        )
    }

    func push(_ session: NavigationSession, _ count: Int) throws {
        for index in 0..<count {
            try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": .string("u\(index)")]))
        }
    }

    @Test("A watcher gets a full snapshot first, then one event per revision")
    func snapshotThenEvents() async throws {
        let session = try makeSession()
        let watcher = session.watch()
        try push(session, 2)
        let updates = [try await watcher.next(), try await watcher.next(), try await watcher.next()]
        guard case .snapshot(let snapshot, coalesced: false)? = updates[0] else {
            Issue.record("first update is not a snapshot: \(String(describing: updates[0]))")
            return
        }
        #expect(snapshot.revision == 0)
        #expect(snapshot.stack.map(\.route.id) == ["profile.user"])
        #expect(snapshot.stack[0].state == ["status": "loaded", "value": "u0"])
        let revisions = updates.dropFirst().compactMap { update -> UInt64? in
            if case .event(let event)? = update { return event.revision }
            return nil
        }
        #expect(revisions == [1, 2])
        watcher.cancel()
        #expect(try await watcher.next() == nil)
    }

    @Test("Two watchers see the same events in the same order")
    func twoWatchersAgree() async throws {
        let session = try makeSession()
        let first = session.watch()
        let second = session.watch()
        try push(session, 3)
        try session.pop()
        var seen: [[SessionWatcher.Update]] = [[], []]
        for (index, watcher) in [first, second].enumerated() {
            for _ in 0..<5 { seen[index].append(try #require(try await watcher.next())) }
        }
        #expect(seen[0] == seen[1])
    }

    @Test("Resuming from a held revision delivers exactly the missed events")
    func resumeWithHeldEvents() async throws {
        let session = try makeSession()
        try push(session, 4)
        let watcher = session.watch(from: 2)
        var revisions: [UInt64] = []
        for _ in 0..<2 {
            if case .event(let event)? = try await watcher.next() { revisions.append(event.revision) }
        }
        #expect(revisions == [3, 4])
        try push(session, 1)
        if case .event(let event)? = try await watcher.next() { revisions.append(event.revision) }
        #expect(revisions == [3, 4, 5])
    }

    @Test("Resuming from a revision no longer held, or from the future, starts with a snapshot")
    func resumeTooOld() async throws {
        let session = try makeSession(history: 2)
        try push(session, 5)
        for resume: UInt64 in [1, 99] {
            let watcher = session.watch(from: resume)
            guard case .snapshot(let snapshot, coalesced: false)? = try await watcher.next() else {
                Issue.record("expected a snapshot when resuming from \(resume)")
                return
            }
            #expect(snapshot.revision == 5)
        }
        let current = session.watch(from: 5)
        guard case .snapshot? = try await current.next() else {
            Issue.record("resuming from the current revision gives a snapshot to start from")
            return
        }
    }

    @Test("Resuming past more events than the watcher's queue holds starts with a snapshot, then events after it")
    func resumeBeyondTheQueue() async throws {
        let session = try makeSession(watcherLimit: 4)
        try push(session, 10)
        // Four missed events fit the queue: they come as events.
        let near = session.watch(from: 6)
        var revisions: [UInt64] = []
        while near.pendingCount > 0 {
            if case .event(let event)? = try await near.next() { revisions.append(event.revision) }
        }
        #expect(revisions == [7, 8, 9, 10])
        // Eight do not: one snapshot of now stands in for them (they were queued, coalesced into a snapshot of now,
        // and the older ones queued after it; twice the queue ended the new watcher as too slow).
        let far = session.watch(from: 2)
        #expect(far.pendingCount == 1)
        guard case .snapshot(let snapshot, coalesced: false)? = try await far.next() else {
            Issue.record("expected a snapshot")
            return
        }
        #expect(snapshot.revision == 10)
        try push(session, 1)
        guard case .event(let event)? = try await far.next() else {
            Issue.record("expected the next event")
            return
        }
        #expect(event.revision == 11)
    }

    @Test("A coalesced snapshot that shows changes not released yet is followed by no event it already shows")
    func coalescedSnapshotCoversHeldEvents() async throws {
        let session = try makeSession(watcherLimit: 2)
        session.holdsEventsUntilDurable = true
        let watcher = session.watch()
        try push(session, 3)  // revisions 1 to 3, held until "durable"
        session.releaseChanges(through: 1, record: session.record)  // queued after the first snapshot: queue full
        session.releaseChanges(through: 2, record: session.record)  // coalesces: a snapshot of now, revision 3
        session.releaseChanges(through: 3, record: session.record)  // shown by that snapshot already
        try push(session, 1)
        session.releaseChanges(through: 4, record: session.record)
        var revisions: [UInt64] = []
        while watcher.pendingCount > 0 {
            switch try await watcher.next() {
            case .snapshot(let snapshot, _)?: revisions.append(snapshot.revision)
            case .event(let event)?: revisions.append(event.revision)
            case nil: break
            }
        }
        #expect(revisions == [3, 4], "each update after the last, none at or below a snapshot's revision")
    }

    @Test("A watcher that falls behind gets one coalesced snapshot, then events after it")
    func slowWatcherCoalesces() async throws {
        let session = try makeSession(watcherLimit: 4)
        let watcher = session.watch()
        try push(session, 4)  // snapshot + 3 events fill the queue; the 4th change coalesces
        #expect(watcher.pendingCount == 1)
        guard case .snapshot(let snapshot, coalesced: true)? = try await watcher.next() else {
            Issue.record("expected a coalesced snapshot")
            return
        }
        let afterSnapshot = snapshot.revision
        try push(session, 1)
        var last = afterSnapshot
        while watcher.pendingCount > 0 {
            if case .event(let event)? = try await watcher.next() { last = event.revision }
        }
        #expect(last == session.revision)
        #expect(snapshot.stack.count + 1 == session.snapshot.stack.count)
    }

    @Test(
        "While its consumer waits with nothing queued, an event goes to the direct delivery; one it refuses wakes it"
    )
    func directDelivery() async throws {
        let session = try makeSession()
        let watcher = session.watch()
        let taken = Mutex<[UInt64]>([])
        let accepting = Atomic<Bool>(true)
        watcher.deliverDirectly { event in
            guard accepting.load(ordering: .relaxed) else { return false }
            taken.withLock { $0.append(event.revision) }
            return true
        }
        // The first snapshot is still queued, so the change queues behind it: the order stays the order of changes.
        try push(session, 1)
        #expect(taken.withLock { $0 }.isEmpty)
        guard case .snapshot? = try await watcher.next(), case .event(let queued)? = try await watcher.next() else {
            Issue.record("expected the snapshot, then the queued event")
            return
        }
        #expect(queued.revision == 1)

        // The consumer now waits with nothing queued: two changes go to the direct delivery, and it sleeps on.
        let consumer = Task { try await watcher.next() }
        while !watcher.hasWaitingConsumer { await Task.yield() }
        try push(session, 2)
        #expect(taken.withLock { $0 } == [2, 3])
        #expect(watcher.hasWaitingConsumer)
        #expect(watcher.pendingCount == 0)

        // A change the direct delivery refuses wakes the consumer with it, as without one.
        accepting.store(false, ordering: .relaxed)
        try push(session, 1)
        guard case .event(let woken)? = try await consumer.value else {
            Issue.record("the consumer was not woken with the refused event")
            return
        }
        #expect(woken.revision == 4)
        #expect(taken.withLock { $0 } == [2, 3])
        watcher.cancel()
    }

    @Test(
        "A watcher that does not read is coalesced again each time its queue fills: memory stays bounded, and it reaches the latest revision once it reads"
    )
    func neverReadingWatcherIsCoalescedAgain() async throws {
        let session = try makeSession(watcherLimit: 4)
        let watcher = session.watch()
        for index in 0..<1000 {
            try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": .string("u\(index)")]))
            try session.pop()
            #expect(watcher.pendingCount <= 4)
        }
        var updates: [SessionWatcher.Update] = []
        while watcher.pendingCount > 0, let update = try await watcher.next() { updates.append(update) }
        guard case .snapshot(let snapshot, coalesced: true)? = updates.first else {
            Issue.record("the first update is not a coalesced snapshot: \(updates)")
            return
        }
        var revision = snapshot.revision
        for case .event(let event) in updates.dropFirst() {
            #expect(event.revision == revision + 1)
            revision = event.revision
        }
        #expect(revision == session.revision)
        #expect(updates.dropFirst().allSatisfy { if case .event = $0 { true } else { false } })
        #expect(session.watcherCount == 1)
        watcher.cancel()
    }
}
