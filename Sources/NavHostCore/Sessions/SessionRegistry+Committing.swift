import Logging
import NavHostKit
import NavHostStorage
import NavHostWire

// MARK: - Committing: a call's changes on disk before its answer, and what a failed write takes back

extension SessionRegistry {
    /// Returns once the session's current state is durable: call it before acknowledging a change.
    ///
    /// - Parameter takeBacks: The session's ``NavigationSession/takeBacks`` from before the change was made; by
    ///   default, its value now.
    /// - Throws: ``NavigationError`` `StorageFailed` when the change is not durable: the write failed and the
    ///   session's unwritten changes were taken back (watchers never heard of them), or changes were taken back while
    ///   this one waited, so it may be among them; or a write that held only bookkeeping failed and the change's
    ///   revision is not below the reservation on disk (nothing is taken back: watchers hear of it once a write
    ///   succeeds, and `Stack` shows it meanwhile). The change must not be acknowledged then. After a failed write,
    ///   the answer, this error or done, comes once the write a take-back queued over the failed write has landed or
    ///   failed (``writeOverTheFailureLands(_:)``).
    public func commit(_ session: NavigationSession, takeBacks: Int? = nil) async throws {
        let takeBacks = takeBacks ?? session.takeBacks
        guard let persistence, let record = try recordToWrite(session, takeBacks: takeBacks) else { return }
        var failure: (any Error)?
        do {
            try await persistence.save(record)
            session.releaseChanges(writtenIn: record, through: record.revision)
            endFailureRun(of: session)
        } catch {
            failure = error
            takeBack(session, because: error)
        }
        if failure != nil || session.takeBacks != takeBacks { await writeOverTheFailureLands(session) }
        if session.takeBacks != takeBacks {
            throw NavigationError.storageFailed(
                failure.map { "\($0)" } ?? lastWriteFailure[session.name] ?? "a write of the session failed"
            )
        }
        // A failed write of bookkeeping alone (screen numbers, the revision reservation) loses nothing of the call,
        // unless the call's revision is above what the disk reserves: after a restart it would be given out again,
        // for another state.
        if let failure,
            !persistence.holdsStack(of: record) || !persistence.reserves(record.revision, of: session.name)
        {
            throw NavigationError.storageFailed("\(failure)")
        }
    }

    /// Returns once the write a take-back queued over a failed write of `session` (``queueOverTheFailedWrite(_:_:_:)``)
    /// has landed or failed, and its outcome was handled: at once when none is under way. A commit refused for a
    /// failure (its change taken back, or a failed write that may hold what it changed) is answered after it, so that
    /// what it was refused for is off the disk by then, as far as that write takes it: queued but not landed, the file
    /// still held the refused change when `StorageFailed` went out, and a kill -9 in between brought it back. A commit
    /// whose failed write held only what the write over it writes (a pop made before the take-back of a push whose
    /// write landed) is answered done once that write lands: its state is on disk then.
    ///
    /// It waits for that one write, not for the writes after it: when it fails, its own take-back may queue another,
    /// which the commit does not wait for; the persistence's retry writes the session's state again from then on,
    /// for as long as the disk fails. So a refused commit waits one write more than a commit answered done, behind the
    /// writes queued before it (the writer is one queue for every session), and a disk that hangs a write holds it as
    /// it holds every commit; no timer bounds it, as none bounds the commit's own write.
    func writeOverTheFailureLands(_ session: NavigationSession) async {
        guard let writeOver = session.writeOverTheFailure else { return }
        await writeOver.value
    }

    /// ``commit(_:takeBacks:)`` when the session's state is durable already (a call that changed nothing kept across
    /// a crash): done at once, without a wait. `false` when there is something to write: call
    /// ``commit(_:takeBacks:)``.
    ///
    /// - Throws: ``NavigationError`` as ``commit(_:takeBacks:)``.
    public func commitAtOnce(_ session: NavigationSession, takeBacks: Int? = nil) throws -> Bool {
        try recordToWrite(session, takeBacks: takeBacks ?? session.takeBacks) == nil
    }

    /// The session's record when it must be written before a change is acknowledged; `nil` when it is durable
    /// already, and then the commit is done.
    func recordToWrite(_ session: NavigationSession, takeBacks: Int) throws -> SessionRecord? {
        guard let persistence else { return nil }
        // A session a CloseSession closed meanwhile keeps nothing: its emptied record is written, and one a client
        // opened under the name since owns the file (a closed session's later record would have a higher revision,
        // and win). The call is told, not answered as done. One the stop or a configuration reload closed keeps its
        // record for the next start: what it changed is written as before.
        if hasLostItsRecord(session) {
            // With a reason: the name was right, and a client shows no "did you mean" for it.
            throw NavigationError(
                .sessionNotFound,
                "session \"\(session.name)\" was closed while the call was made",
                parameters: ["session": .string(session.name), "reason": "closed while the call was made"]
            )
        }
        let record = session.record
        guard persistence.saveAtOnce(record) else { return record }
        session.releaseChanges(through: record.revision, record: record)
        // A write that failed since the change was made took it back.
        if session.takeBacks != takeBacks {
            throw NavigationError.storageFailed(lastWriteFailure[session.name] ?? "a write of the session failed")
        }
        return nil
    }

    /// Returns once every open session's current state is durable, or its write failed: after a change that may
    /// touch them all (a plugin loaded, reloaded or unloaded rebuilds or removes screens).
    ///
    /// Each session is committed in its turn, whatever became of those before it. A session a client closed while an
    /// earlier one's write was under way keeps nothing (its close was answered with its record emptied) and is passed
    /// over, and so is one a configuration reload closed and opened again under its name meanwhile (the new session
    /// read the old one's record once its writes had landed, and its own opening committed it). Before, the first
    /// session that failed, or that was closed so, ended the loop: the sessions after it were not waited for, and a
    /// kill -9 after the reply could lose what the change did to them.
    ///
    /// - Returns: The sessions that could not be made durable, in the order they were committed, each with what its
    ///   commit threw (``NavigationError`` `StorageFailed`, as ``commit(_:takeBacks:)``); empty when every one is.
    public func commitAll() async -> [(session: String, error: any Error)] {
        var unsaved: [(session: String, error: any Error)] = []
        for session in all {
            do {
                try await commit(session)
            } catch {
                guard !hasLostItsRecord(session) else { continue }
                unsaved.append((session.name, error))
            }
        }
        return unsaved
    }

    /// Saves the session's state after a change no client waits on (a ViewModel's own), and tells watchers once it
    /// is durable; a change that keeps nothing new across a crash goes out at once.
    func persist(_ session: NavigationSession, through revision: UInt64) {
        guard let persistence else { return }
        let record = session.record
        if persistence.isDurable(record) {
            session.releaseChanges(through: revision, record: record)
            return
        }
        if isCatchUpForTheRetry(record, of: session) {
            session.holdCatchUpForTheRetry(record)
            return
        }
        // A take-back's catch-up (or a change a screen it built again makes as it appears) is queued by the take-back
        // itself, at its end, in its own stretch (``queueOverTheFailedWrite(_:_:_:)``): from the task below, it came
        // one main-actor hop later, and the refused client could be answered first.
        if takeBackUnderWay?.session == ObjectIdentifier(session) {
            takeBackUnderWay?.catchUpToSave = true
            return
        }
        Task {
            // The record is taken again when the save is queued, not when the change was made: a client's commit in
            // between may have queued a newer one of the same revision (a restorable-only change makes none), and
            // the persistence keeps the later of two equal revisions. An older record queued last would overwrite
            // what that client was answered for.
            guard !hasLostItsRecord(session) else { return }
            await saveInBackground(session, through: revision)
        }
    }

    /// Saves the session's current record, taken and queued in one stretch of the main actor (a change made after it
    /// is not in it, and one a take-back removed is not either), tells watchers of the changes up to `revision` (the
    /// record's, by default) once it is durable, and takes back what could not be written. For a save no client
    /// waits on: a ViewModel's own change, or the persistence's retry after a failed write
    /// (``SessionPersistence/rewriteAfterFailures(of:with:)``).
    ///
    /// - Parameter unlessRefused: Saves nothing while a failed write of the session refuses its records
    ///   (``SessionPersistence/saveUnlessRefused(_:)``), and returns `false` then.
    @discardableResult
    func saveInBackground(
        _ session: NavigationSession,
        through revision: UInt64? = nil,
        unlessRefused: Bool = false
    ) async -> Bool {
        guard let persistence else { return true }
        let record = session.record
        do {
            if unlessRefused {
                guard try await persistence.saveUnlessRefused(record) else { return false }
            } else {
                try await persistence.save(record)
            }
            savedInBackground(session, record, through: revision ?? record.revision)
        } catch {
            takeBack(session, because: error, inBackground: true)
        }
        return true
    }

    /// What a background save's success does: tells watchers of the changes up to `revision` that `record` holds, and
    /// ends the run of failures under way.
    func savedInBackground(_ session: NavigationSession, _ record: SessionRecord, through revision: UInt64) {
        session.releaseChanges(writtenIn: record, through: revision)
        endFailureRun(of: session)
    }

    /// Whether `record`, of `session`, is the catch-up event of the take-back under way (``takeBackUnderWay``) and holds
    /// exactly what the failed write it takes back tried to write (stack, restorable states, screen numbers,
    /// reservation), while the file may hold a failed write. Saving it would only try that write again: the file holds
    /// that content or what it held before the write, and the persistence's retry writes the session's state at its
    /// next round (the settle's, once the session closed), whose success releases the event
    /// (``NavigationSession/releaseChanges(writtenIn:through:)``). Saved at once, the catch-up of a session the
    /// persistence holds no written stack of (a fresh one whose first write failed, one restored without some of its
    /// screens, one whose file was lost) failed in turn while the disk failed, and its take-back recorded another: about
    /// 2,400 failed writes in 3 s in `settleOfASessionNeverWrittenEnds`, open or closed.
    ///
    /// Any other catch-up is saved at once: it writes over what the failed write may have left in the file. Compared
    /// with that write alone, not with the session's record before the take-back (a pop made before the take-back of a
    /// push whose write landed made them equal: the file kept the push until the retry's next round), nor with any
    /// write that failed since the last success (a second pop whose write landed, its catch-up the first one's tried
    /// already: the file kept the pop). Both were rejected by review in session 42.
    func isCatchUpForTheRetry(_ record: SessionRecord, of session: NavigationSession) -> Bool {
        guard let persistence, let underWay = takeBackUnderWay, underWay.session == ObjectIdentifier(session),
            let failedWrite = underWay.failedWrite, failedWrite.hasDurableContent(of: record)
        else {
            return false
        }
        return persistence.mayHoldFailedWrite(of: session.name)
    }

    /// Whether `session` is the one open under its name (not closed, nor replaced by another of the name).
    func isOpen(_ session: NavigationSession) -> Bool {
        session.isOpen
    }

    /// Whether `session`'s record is no longer its own: a `CloseSession` emptied it, or another session of its name
    /// holds it now. A session the stop or a configuration reload closed keeps its record for the next start.
    func hasLostItsRecord(_ session: NavigationSession) -> Bool {
        if session.isClosedDurably { return true }
        // The open one of its name, the common case, is answered without a look-up.
        if session.isOpen { return false }
        // Without a closure: see `NavigationSession.screen(_:)`.
        guard let current = sessions[session.name] else { return false }
        return current !== session
    }

    /// Takes back what could not be written, and says so at `error` level. The daemon recovers by itself: the
    /// persistence writes the session's state again, as a new snapshot, with a growing pause, until a write succeeds.
    ///
    /// A write that only kept bookkeeping (the next screen number, the revision reservation) takes nothing back: the
    /// stack and every restorable state are on disk already, so the held changes go out, and the write is tried again
    /// with the next change. Taking such a change back would only make another one, which fails in turn. Watchers
    /// hear of the held changes only up to the revision the disk reserves, though: one above it would be given out
    /// again, for another state, after a restart. The rest wait for a write that succeeds.
    ///
    /// A failed write that answers several callers is taken back once, for the first of them: by the time a later one
    /// runs, the session's records are written again, and what it holds that watchers have not heard of yet was
    /// changed since, its write allowed (a later caller's take-back took it back: its caller was answered
    /// `StorageFailed`, and it was on disk).
    ///
    /// - Parameter inBackground: Whether the failed write was a background save (a ViewModel's own change, or the
    ///   record a take-back made): then only what the last write that succeeded wrote counts, not what a failed write
    ///   may have left. Else, the record of a take-back that changed nothing (a failed write that reached the disk
    ///   may hold another stack) would be taken back in turn when its write failed, and again, as long as the disk
    ///   fails. What a failed write may have left is written over by the session's next write that succeeds, which
    ///   the persistence's retry makes once the disk takes it (``SessionPersistence/rewriteAfterFailures(of:with:)``).
    ///   - beforeItsLastWrite: Whether it is a closing session's last write's own take-back (``writeOnceMore(_:)``),
    ///     which writes over the failure right after it: it gives the session no more writes in the settle (a
    ///     caller's take-back does, ``keepForTheSettle(_:afterACallersFailure:)``).
    func takeBack(
        _ session: NavigationSession,
        because error: any Error,
        inBackground: Bool = false,
        beforeItsLastWrite: Bool = false
    ) {
        // Its record is no longer its own: whatever refuses the name's records now is the new owner's to take back.
        guard !hasLostItsRecord(session) else { return }
        let failure = error as? SessionPersistence.WriteFailure
        // No caller of the failed write has taken it back yet (any other error, or no persistence, refuses too).
        let stillRefuses = failure.flatMap { persistence?.isRefusing($0) } ?? true
        // The first of the failed write's callers, not the settle: what it may have left in the file came after the
        // last write queued so far, and nothing queued yet writes over it.
        let isTheFirstCaller = !beforeItsLastWrite && stillRefuses
        // Closed by the stop or a reload before this write began: nothing else writes over what it left.
        defer {
            if !isOpen(session) {
                keepForTheSettle(session, afterACallersFailure: isTheFirstCaller)
                // Not kept (kept too often already, or nothing left to write): nothing else ends its run of failures. A
                // last write's own take-back leaves it to the close, which keeps the session right after.
                if !beforeItsLastWrite, closedUnsettled[session.name]?.session !== session {
                    endFailureRun(of: session, closing: true)
                }
            }
        }
        guard stillRefuses else { return }
        // Once what the failed write held is taken back, the session's records are written again. A catch-up queued
        // over it ended the refusal already (``queueOverTheFailedWrite(_:_:_:)``): a failure of unknown generation
        // ended here would end any refusal, the catch-up's own failed write's too, if the writer failed it meanwhile.
        var catchUpQueued = false
        defer { if !catchUpQueued { persistence?.takenBack(session.name, generation: failure?.generation) } }
        let current = session.record
        // A failed write may have reached the disk all the same: what it held is taken back then, and the record
        // after the take-back is written over it (``SessionPersistence/holdsStack(of:)``).
        if let persistence,
            inBackground ? persistence.wroteStack(of: current) : persistence.holdsStack(of: current)
        {
            // Below the reservation: a restored session starts at it, with another state.
            let reserved = persistence.reservedRevision(of: session.name) ?? 0
            session.releaseChanges(through: min(current.revision, max(reserved, 1) - 1), record: current)
            if inBackground { writeOverTheFailedWrite(session, current, failure) }
            return
        }
        // One slot: a take-back nested in another would end the outer one's, whose catch-up would then go unsaved.
        precondition(takeBackUnderWay == nil, "a take-back began while another was under way")
        takeBackUnderWay = TakeBackUnderWay(session: ObjectIdentifier(session), failedWrite: failure?.written)
        defer { takeBackUnderWay = nil }
        let tookBack = session.takeBackUnreleasedChanges()
        // Its catch-up is queued before any caller of the failed write is answered: the refused client is answered
        // `StorageFailed` with the write over its change queued (``persist(_:through:)`` leaves it to the take-back).
        if takeBackUnderWay?.catchUpToSave == true {
            queueOverTheFailedWrite(session, session.record, failure)
            catchUpQueued = true
        }
        guard tookBack else { return }
        lastWriteFailure[session.name] = "\(error)"
        countTakeBack(of: session, because: error)
    }

    /// Queues `current`, the record of `session` a background save's take-back found written by the last write that
    /// succeeded, once, when the failed write tried to write something else: the file may hold a change the session's
    /// stack no longer holds (a push whose write landed, popped before the take-back), and nothing else writes over it
    /// before the persistence's retry's next round (50 ms to 5 s later), which a kill -9 could come before. Not when
    /// the failed write tried `current` itself: that would only try it again, which the retry does.
    ///
    /// Queued in the take-back's stretch (``queueOverTheFailedWrite(_:_:_:)``), before any other caller of the failed
    /// write resumes: the refused client is answered `StorageFailed` with the write over its change queued. Queued from
    /// a task of its own, it came one main-actor hop later, and the client could be answered first, the file holding
    /// the change until that task ran (a kill -9 in between brought the push back). Its outcome is awaited as a
    /// background save's: a write only submitted neither released the changes held nor ended the run of failures,
    /// as the retry's round it makes needless would have: the watchers stayed stale, a later run of failures logged no
    /// line of its own, and a close said the state could not be saved.
    func writeOverTheFailedWrite(
        _ session: NavigationSession,
        _ current: SessionRecord,
        _ failure: SessionPersistence.WriteFailure?
    ) {
        guard let failure, let written = failure.written, !written.hasDurableContent(of: current) else { return }
        queueOverTheFailedWrite(session, current, failure)
    }

    /// Queues `record`, the state of `session` a take-back leaves, over what the failed write it takes back may have
    /// left in the file, in the take-back's stretch: the take-back's catch-up (its usual path), or the record a
    /// background save's take-back found written (``writeOverTheFailedWrite(_:_:_:)``). The failure refuses the
    /// session's records no more first (the take-back's `defer` comes too late): until then it would refuse this one.
    /// A task awaits the outcome, as a background save (``saveInBackground(_:through:unlessRefused:)``) would: its
    /// success tells watchers of the changes `record` holds and ends the run of failures; its failure is taken back.
    ///
    /// Queued unless refused, as the retry's rounds are, for a failure of its own write that answers another caller
    /// too (a commit written with its record, or queued behind it): that caller takes it back, and the task, answered
    /// ``SessionPersistence/outcome(of:)`` `false`, leaves it, so it never takes a failure back in a background save's
    /// way before the refused callers do, which could let watchers hear of changes they were answered `StorageFailed`
    /// for. That caller's catch-up writes over the failed write then. No refusal keeps it out as it is queued: the
    /// take-back ends the failure's right before, in the same stretch of the main actor, and the failure left no write
    /// of the session queued or under way to fail in between (it answered the records queued behind it, and refused
    /// those queued since).
    func queueOverTheFailedWrite(
        _ session: NavigationSession,
        _ record: SessionRecord,
        _ failure: SessionPersistence.WriteFailure?
    ) {
        guard let persistence else { return }
        persistence.takenBack(session.name, generation: failure?.generation)
        let save = persistence.queue(record, unlessRefused: true)
        // The commits refused for the failure wait for it (``writeOverTheFailureLands(_:)``).
        session.writeOverTheFailure = Task {
            do {
                guard try await persistence.outcome(of: save) else { return }
                savedInBackground(session, record, through: record.revision)
            } catch {
                takeBack(session, because: error, inBackground: true)
            }
        }
    }
}
