import Logging
import NavHostKit
import NavHostStorage
import NavHostWire

// MARK: - Settling: the last writes of sessions that closed, before the stop ends

extension SessionRegistry {
    /// Queues one last write of `session`'s current state as it closes without a durable close (the stop, a reload
    /// that no longer declares it) — or, closed durably (`CloseSession`, a refused `OpenSession`), of its record
    /// emptied — when its file may hold a record whose write failed: its retry stops
    /// (``SessionPersistence/stopRewriting(_:)``), and the file kept the refused change, which the next start, or a
    /// reload that declares the name again, opened the session from. Queued in the stretch that closes it: nothing
    /// changes the session after. A failed write its callers have not taken back yet is taken back first (they find
    /// it done, and answer `StorageFailed` as they would): until then the session holds the refused change.
    func writeOnceMore(_ session: NavigationSession) {
        guard let persistence, persistence.mayHoldFailedWrite(of: session.name) else { return }
        // A session closed as `CloseSession` closes one leaves its record emptied, not its stack; a failed write it
        // had not taken back refuses that no more, as the emptied record holds nothing of it.
        if session.isClosedDurably {
            persistence.takenBack(session.name)
            persistence.submit(Self.emptied(session.record))
            return
        }
        guard !hasLostItsRecord(session) else { return }
        if let refusal = persistence.refusal(of: session.name) {
            takeBack(session, because: refusal, beforeItsLastWrite: true)
        }
        persistence.submit(session.record)
    }

    /// What `session`'s writes need as it closes (the stop, a reload, `CloseSession`, a refused `OpenSession`): its
    /// retry stops, its last write is queued (``writeOnceMore(_:)``), and it is kept for ``settleClosedSessions()``
    /// while that write may not land; whether it was kept.
    @discardableResult
    func queueLastWrite(of session: NavigationSession) -> Bool {
        // Names never opened again would keep them for good.
        closedKeepingRecords = closedKeepingRecords.filter { $0.value.owner != nil }
        persistence?.stopRewriting(session.name)
        writeOnceMore(session)
        guard lastWriteMayNotLand(of: session.name) else {
            // The last write landed, and nothing is under way: a run of failures still counted ends saved (`notice`),
            // not "could not be saved". A session kept for the settle ends it there, once its last write lands, or
            // the settle gives it up.
            endFailureRun(of: session)
            if !session.isClosedDurably { closedKeepingRecords[session.name] = session.backlink }
            return false
        }
        closedUnsettled[session.name] = UnsettledSession(session: session)
        return true
    }

    /// Keeps `session`, closed by the stop or a reload, for ``settleClosedSessions()`` when a write of it that began
    /// after its close failed, and its file may hold that write, and starts a settle: its retry stopped at the close,
    /// and it was not kept then, its file holding no failed write yet. Before, the refused change stayed in the file,
    /// and the next start, or a reload that declares the name again, opened the session with it.
    ///
    /// A session kept already gets at least one write more `afterACallersFailure`: the failure of a write the first
    /// of whose callers takes it back may have come after the settle's last write of the session, which then wrote
    /// nothing over it (before, the settle gave the session up with the refused change in its file). The settle's own
    /// take-back (``writeOnceMore(_:)``, a refusal its callers had not taken back yet) gives none: its write comes
    /// right after it, and is counted. Had it given one, a settle on a disk that keeps failing could go on for good: its
    /// take-back makes a change whose background save fails, and refuses, and a round that comes before that save's
    /// caller takes the refusal back again, and makes another (session 40's first fix, reverted).
    ///
    /// Either happens ``lateKeepsAllowed`` times at most for a session (``NavigationSession/lateKeepsForTheSettle``);
    /// then the settle gives it up as it would have at its close. The bound is for a failure that comes back for as long
    /// as the disk fails: a background save's take-back that finds no stack it wrote (a session the persistence has no
    /// durable record of: a fresh one whose first write failed, or one restored without some of its screens) records a
    /// change even when it changes nothing, whose save would fail in turn, its caller first again. Unbounded, each such
    /// failure would give the session a write more, or keep it again with all its rounds once the settle had given it
    /// up: the settle would never end, and would hold the stop until `TimeoutStopSec` and a reload's name for good.
    /// That change is held for the retry, without a save of its own (``isCatchUpForTheRetry(_:of:)``), which ends this
    /// loop; the bound stays for any other way a failure could come back.
    ///
    /// - Parameter afterACallersFailure: Whether a caller of the failed write took it back first (not the settle).
    func keepForTheSettle(_ session: NavigationSession, afterACallersFailure: Bool = false) {
        guard lastWriteMayNotLand(of: session.name) else { return }
        if closedUnsettled[session.name] != nil {
            guard afterACallersFailure, closedUnsettled[session.name]?.writesLeft == 0 else { return }
            guard session.mayBeKeptLateForTheSettle() else { return }
            closedUnsettled[session.name]?.writesLeft = 1
        } else {
            guard session.mayBeKeptLateForTheSettle() else { return }
            closedKeepingRecords[session.name] = nil
            closedUnsettled[session.name] = UnsettledSession(session: session)
        }
        Task { await settleClosedSessions() }
    }

    /// How many times a closed session can be kept for the settle, or given a write more there, after its close
    /// (``keepForTheSettle(_:afterACallersFailure:)``).
    nonisolated static let lateKeepsAllowed = 3

    /// The session the stop or a reload closed last under `name`, while a call of it may still be under way and its
    /// file may hold a failed write that call's caller has not taken back yet
    /// (``keepForTheSettle(_:afterACallersFailure:)``).
    func closedSessionMayHoldFailedWrite(_ name: String) -> NavigationSession? {
        guard let persistence, persistence.mayHoldFailedWrite(of: name), sessions[name] == nil else { return nil }
        return closedKeepingRecords[name]?.owner
    }

    /// Whether the last write of the session `name`, closed, may not land: its file may hold a failed write, or a
    /// write of it is under way, whose failure would drop the last write queued behind it.
    func lastWriteMayNotLand(of name: String) -> Bool {
        guard let persistence else { return false }
        return persistence.mayHoldFailedWrite(of: name) || persistence.isWriting(name)
    }

    /// A closed session whose last write may not have landed, and when ``settleClosedSessions()`` writes it again:
    /// at once, then after pauses that double from 50 ms, ``lastWriteRounds`` times before it gives up. Kept per
    /// session, so that one kept while the settle runs for others is written as often, and as soon.
    struct UnsettledSession {
        let session: NavigationSession
        var writesLeft = SessionRegistry.lastWriteRounds
        var due = ContinuousClock.now
        var pause = Duration.milliseconds(50)
    }

    /// How many times ``settleClosedSessions()`` writes a closed session again before it gives up.
    nonisolated static let lastWriteRounds = 5

    /// How long the daemon's stop lets the store writes that replies wait for (an intent answered `IntentTimedOut`, or
    /// `ScreenClosed`) go on before it answers without them: a write that ends sooner is on disk before its reply; one
    /// that never ends holds the stop this long, well inside systemd's `TimeoutStopSec`.
    nonisolated static let storeWriteGraceAtStop = Duration.seconds(5)

    /// Returns once the file of every session kept at its close (``queueLastWrite(of:)``) holds no failed write (its
    /// last write landed), or no longer the closed session's (another of the name opened), or once that session was
    /// written ``lastWriteRounds`` more times: the first rewrite right away, each later one after a pause that doubles
    /// from 50 ms (0.75 s in all). A session given up is logged at `error` level: its file may keep a change its
    /// callers were answered `StorageFailed` for. The stop waits for it before the process exits. One settle runs at a
    /// time, and a caller while it runs waits for it, so for the sessions kept meanwhile too.
    ///
    /// The last write queued at a close (``writeOnceMore(_:)``) is dropped when a write queued before it fails after
    /// it was queued (its records hold that write's change): written once and not again, the file kept the refused
    /// change. A disk that hangs holds this call as long as it hangs the write; at a stop, systemd's `TimeoutStopSec`
    /// bounds it.
    public func settleClosedSessions() async {
        guard persistence != nil else { return }
        if let settling { return await settling.value }
        let settle = Task { await writeClosedSessionsUntilSettled() }
        settling = settle
        await settle.value
    }

    /// ``settleClosedSessions()``'s rounds, until no closed session is left to write.
    func writeClosedSessionsUntilSettled() async {
        guard let persistence else { return }
        while true {
            await persistence.waitForQueuedWrites()
            for (name, unsettled) in closedUnsettled where sessions[name] != nil || !lastWriteMayNotLand(of: name) {
                closedUnsettled[name] = nil
                // A run of failures after its close ends here, its last write landed (or another session of the
                // name owns the file).
                endFailureRun(of: unsettled.session, closing: sessions[name] != nil)
            }
            for (name, unsettled) in closedUnsettled.sorted(by: { $0.key < $1.key }) where unsettled.writesLeft == 0 {
                closedUnsettled[name] = nil
                endFailureRun(of: unsettled.session, closing: true)
                logger.error(
                    "Gave up writing a closed session's last state: its file may keep a change answered StorageFailed",
                    metadata: ["navhost.session": "\(name)", "navhost.rounds": "\(Self.lastWriteRounds)"]
                )
            }
            // Ends in the stretch that finds nothing left: a session kept after it starts the next settle.
            guard let next = closedUnsettled.values.map(\.due).min() else {
                settling = nil
                return
            }
            let now = ContinuousClock.now
            guard next <= now else {
                // What closed or opened during the pause is as the next round finds it.
                try? await Task.sleep(until: next, clock: .continuous)
                continue
            }
            for (name, unsettled) in closedUnsettled where unsettled.due <= now {
                closedUnsettled[name]?.writesLeft -= 1
                closedUnsettled[name]?.due = now + unsettled.pause
                closedUnsettled[name]?.pause = unsettled.pause * 2
                writeOnceMore(unsettled.session)
            }
        }
    }
}

// MARK: - Late keeps

extension NavigationSession {
    /// Counts one more late keep for the settle (``SessionRegistry/keepForTheSettle(_:afterACallersFailure:)``) when
    /// fewer than ``SessionRegistry/lateKeepsAllowed`` were made; whether it was counted.
    fileprivate func mayBeKeptLateForTheSettle() -> Bool {
        guard lateKeepsForTheSettle < SessionRegistry.lateKeepsAllowed else { return false }
        lateKeepsForTheSettle += 1
        return true
    }
}
