import NavHostKit
public import NavHostStorage
import NavHostWire

// What a session's watchers are told, and when: with persistence, a change reaches them only once it is durable, and
// a change whose write failed is taken back before any of them hears of it (docs/durability.md, "When the disk
// fails").

extension NavigationSession {
    // MARK: Holding changes back

    /// Whether watchers hear of a change only once ``releaseChanges(through:)`` says it is durable. The registry turns
    /// it on for a session it persists; without persistence every change goes out at once.
    public var holdsEventsUntilDurable: Bool {
        get { releasedRecord != nil }
        set { releasedRecord = newValue ? (releasedRecord ?? record) : nil }
    }

    /// Tells watchers of every held change up to `revision`, now that the state it left is durable (or kept nothing
    /// that needs to be).
    public func releaseChanges(through revision: UInt64, record: SessionRecord) {
        guard holdsEventsUntilDurable else { return }
        let ready = unreleased.prefix { $0.revision <= revision }
        guard !ready.isEmpty else { return }
        unreleased.removeFirst(ready.count)
        if let held = catchUpHeldForTheRetry, held.revision <= revision { catchUpHeldForTheRetry = nil }
        for event in ready { tellWatchers(event) }
        releasedRecord = record
    }

    /// ``releaseChanges(through:record:)`` once a write of `record` succeeded: the changes through `revision`, and
    /// the catch-up event held for the persistence's retry (``holdCatchUpForTheRetry(_:)``) when `record` is of its
    /// revision or a later one. A background save asks through the revision of the change that queued it, which may be
    /// below the catch-up's: released through it alone, the catch-up stayed held once that write had ended the retry,
    /// and a watcher shown the change it puts right stayed stale. A record below the catch-up's revision is not
    /// written after it is held: a save takes the session's record as it queues it, and a failed write answers every
    /// save queued behind it.
    func releaseChanges(writtenIn record: SessionRecord, through revision: UInt64) {
        guard let held = catchUpHeldForTheRetry, held.revision <= record.revision else {
            return releaseChanges(through: revision, record: record)
        }
        releaseChanges(through: max(revision, held.revision), record: record)
    }

    /// Holds the catch-up event a take-back just recorded, whose `record` holds what the failed write being taken back
    /// tried to write, without a save of its own: that save would only try the same write again, which the
    /// persistence's retry does at its next round, and whose success releases it
    /// (``releaseChanges(writtenIn:through:)``). Saved at once, for a session the persistence holds no written stack
    /// of, it failed in turn while the disk failed, and its take-back made another catch-up, and so on.
    func holdCatchUpForTheRetry(_ record: SessionRecord) {
        catchUpHeldForTheRetry = record
    }

    // MARK: Taking a change back

    /// Takes back every change watchers have not heard of: the stack, and each screen's restorable state, become the
    /// last released state again, and watchers get one `replaced` event with it. Screens that are as they were keep
    /// their ViewModels; a screen the failed changes removed, or whose restorable state they changed, is built again
    /// from its route and given back its restorable state, as on a restart; screens they added are closed. A closed
    /// session builds none: its record alone goes back (`takeBackWithoutBuilding(to:)`). Does nothing when no change
    /// is held.
    ///
    /// - Returns: Whether anything was taken back.
    @discardableResult
    public func takeBackUnreleasedChanges() -> Bool {
        guard let target = releasedRecord, !unreleased.isEmpty else { return false }
        unreleased.removeAll()
        // A catch-up held is taken back with the rest: the one this take-back records replaces it.
        catchUpHeldForTheRetry = nil
        takeBacks += 1
        if isClosed { return takeBackWithoutBuilding(to: target) }
        var rebuilt: [Screen] = []
        for entry in target.stack {
            if let kept = screen(keptFor: entry) {
                rebuilt.append(kept)
                continue
            }
            let request = RouteRequest(id: entry.route, parameters: entry.parameters)
            guard let screen = try? makeScreen(for: request, presentation: entry.presentation, id: entry.id) else {
                break
            }
            if let saved = entry.restorable { try? screen.restore(saved) }
            screen.openedBy = entry.openedBy
            rebuilt.append(screen)
        }
        guard !rebuilt.isEmpty else { return false }
        let closed = screens.filter { old in !rebuilt.contains { $0 === old } }
        let opened = rebuilt.filter { new in !screens.contains { $0 === new } }
        let rebuiltIDs = Set(rebuilt.map(\.id))
        for screen in closed.reversed() { screen.close(rebuilt: rebuiltIDs.contains(screen.id)) }
        screens = rebuilt
        record(.replaced(rebuilt.map(\.snapshot)))
        for screen in opened { screen.appear() }
        return true
    }

    /// The screen on the stack that `entry` holds as it is: same ID, route, parameters and restorable state.
    private func screen(keptFor entry: SessionRecord.Screen) -> Screen? {
        guard let screen = screens.first(where: { $0.id == entry.id }), screen.route.id == entry.route,
            screen.route.parameters == entry.parameters, screen.restorableState == entry.restorable
        else { return nil }
        return screen
    }

    /// ``takeBackUnreleasedChanges()`` once the session is closed (the stop, a reload, `CloseSession`), by a write
    /// of a call still under way that failed after the close: it builds no screen, as a closed session must not (a
    /// ViewModel made then ran its `onAppear`, and any store write or delivery that began, in a session nothing
    /// would close again). Of its screens, all closed with the session, it drops those `target` does not hold (never
    /// the last: the stack always has one), and it records `target`'s stack as the session's (``record``), final
    /// whatever the closed screens' work does to their states afterwards, which its last writes write over the failed
    /// one. Its watchers ended at the close: the `replaced` event moves the revision on, and gives each screen it holds
    /// no ViewModel for as it was a `null` state.
    private func takeBackWithoutBuilding(to target: SessionRecord) -> Bool {
        guard !target.stack.isEmpty else { return false }
        let held = screens.filter { screen in target.stack.contains { $0.id == screen.id } }
        if !held.isEmpty { screens = held }
        recordedStack = RecordedStack(target.stack, standingFor: screens)
        let snapshots = target.stack.map { entry in
            screen(keptFor: entry)?.snapshot
                ?? ScreenSnapshot(
                    id: entry.id,
                    route: RouteRequest(id: entry.route, parameters: entry.parameters),
                    presentation: entry.presentation,
                    state: .null
                )
        }
        record(.replaced(snapshots))
        return true
    }
}
