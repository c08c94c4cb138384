import Dispatch
import Synchronization

/// Keeps every session's record on disk, off the main actor, with group commit.
///
/// A write adds the record to the session's journal (one `pwrite`, one `fdatasync`) or, at the session's first
/// write of the run, after a failed one and when the journal is full, replaces its snapshot (``SessionStateFile``).
///
/// ``save(_:)`` returns once the record it was given — or a newer one of the same session — is durable. Saves that
/// arrive while a write is under way are coalesced: the next write takes the newest record, and every waiter it
/// covers is answered by that one write. A record whose durable content (stack and restorable states) equals what
/// is already on disk costs nothing: a ViewModel state change that keeps no restorable state needs no write.
///
/// After a failed write that may have reached the disk, the session's state is written again, with a growing pause,
/// until a write succeeds (``rewriteAfterFailures(of:with:)``).
public final class SessionPersistence: Sendable {
    /// What the writer knows of one session: a class, so that a look-up under the lock reads and changes it where it
    /// is. As a struct in the dictionary, each `states[name]?.…` copied the whole state (its records and waiters) out
    /// and back: about 14,000 instructions of a state-changing `Send` (docs/performance-log.md, session 58).
    private final class SessionState {
        var durable: SessionRecord?
        var pending: SessionRecord?
        /// The newest record queued so far (by revision): an older one that arrives later never replaces it.
        var newest: SessionRecord?
        var waiters: [Waiter] = []
        /// The callers of ``saveUnlessRefused(_:)`` waiting on the pending record, apart from the others: a failure
        /// that answers another caller too answers them ``RefusalPending`` (``drain(_:)``).
        var refusableWaiters: [Waiter] = []
        var writing = false
        /// How many callers of ``save(_:)`` and ``saveUnlessRefused(_:)`` the write under way answers, until it is
        /// done (``callersWaiting(of:)``, tests).
        var callersWritten = 0
        /// The callers of ``writesLand(of:)``, answered once ``writing`` ends.
        var landingWaiters: [CheckedContinuation<Void, Never>] = []
        /// Where the session's journal stands; `nil` until this process first wrote the session's snapshot, and
        /// after a failed write: the next write is a snapshot then.
        var journal: SessionStateFile.JournalPosition?

        /// The session's file, made by its first write.
        var file: SessionStateFile?

        /// How many sessions of the name a reload opened while this state was kept (``sessionOpens(_:fileLost:)``):
        /// a failed write of an earlier one refuses nothing of the one open now, whose records hold none of it.
        var openings: UInt64 = 0

        /// The failure of a write whose changes the session has not taken back yet (``takenBack(_:generation:)``):
        /// a record queued meanwhile holds them, and is refused with it rather than written.
        var refusal: WriteFailure?

        /// The durable content of the records whose writes failed since the last write that succeeded. A failed write
        /// may have reached the disk all the same (a snapshot renamed into place before its folder's `fsync` failed,
        /// a journal line whose zeroing failed too): the file holds `durable` or any of them, so none of them is
        /// taken as written, and a record is written even when `durable` holds it, until a write succeeds. `nil`
        /// when there were more than ``maxMayHold``: the file may hold anything written since the last success.
        var mayHold: [SessionRecord]? = []

        /// The stacks of the durable record and of a newer one last found different: a change is looked at several
        /// times before its write lands (``fileHolds(_:)``).
        var differentStacks = SessionRecord.DifferentStacks()

        /// Whether `record`'s durable content is what the file holds, whichever of the failed writes since the last
        /// success reached it.
        func fileHolds(_ record: SessionRecord) -> Bool {
            guard let durable, durable.hasBookkeeping(of: record),
                differentStacks.isSame(durable.stack, record.stack), let mayHold
            else { return false }
            return mayHold.allSatisfy { $0.hasDurableContent(of: record) }
        }

        /// Whether `record`'s stack (screens and restorable states) is what the file holds, whichever of the failed
        /// writes since the last success reached it.
        func fileHoldsStack(of record: SessionRecord) -> Bool {
            guard let durable, SessionRecord.isSameStack(durable.stack, record.stack), let mayHold else { return false }
            return mayHold.allSatisfy { SessionRecord.isSameStack($0.stack, record.stack) }
        }

        /// Records that the write of `record` failed, and may have reached the disk all the same; its callers are
        /// answered (``callersWaiting(of:)`` counts them no more), as in ``wrote(_:at:)``.
        func failedToWrite(_ record: SessionRecord) {
            callersWritten = 0
            guard var list = mayHold else { return }
            let known = durable?.hasDurableContent(of: record) == true
            if known || list.contains(where: { $0.hasDurableContent(of: record) }) { return }
            list.append(record.durableContent)
            mayHold = list.count > SessionPersistence.maxMayHold ? nil : list
        }

        /// Whether `record` needs no write: nothing is being written or waits, and its durable content is on disk.
        func holdsDurably(_ record: SessionRecord) -> Bool {
            !writing && pending == nil && fileHolds(record)
        }

        /// ``holdsDurably(_:)``; when it holds, the durable record takes `record`'s stack, equal to its own but
        /// perhaps in other storage (the session built its stack again since the write, for a change it then undid):
        /// the next comparison finds the same buffer and answers at once, instead of comparing every screen.
        func holdsDurablySharingStack(_ record: SessionRecord) -> Bool {
            guard holdsDurably(record) else { return false }
            durable?.stack = record.stack
            return true
        }

        /// Takes the pending record and the replies waiting on it for ``drain(_:)``, or, when none is left, ends
        /// the writing. Under the lock, with one look-up.
        ///
        /// - Parameter makeFile: The session's file, asked for at its first write only.
        func takePending(makeFile: () -> SessionStateFile) -> Next? {
            guard let record = pending else {
                writing = false
                callersWritten = 0
                return nil
            }
            callersWritten = waiters.count + refusableWaiters.count
            defer {
                pending = nil
                waiters = []
                refusableWaiters = []
            }
            let file = self.file ?? makeFile()
            self.file = file
            return Next(
                record: record,
                waiters: waiters,
                refusableWaiters: refusableWaiters,
                unchanged: fileHolds(record),
                journal: journal,
                file: file,
                opening: openings
            )
        }

        /// Records that `record` was written, the journal now standing at `position`.
        func wrote(_ record: SessionRecord, at position: SessionStateFile.JournalPosition) {
            callersWritten = 0
            durable = record.durableContent
            journal = position
            mayHold = []
        }
    }

    /// The record ``drain(_:)`` writes next, the replies waiting on it (those of ``saveUnlessRefused(_:)`` apart),
    /// whether it changes nothing durable, where the session's journal stands, the session's file, and which session
    /// of the name queued it (``SessionState/openings``).
    private struct Next {
        var record: SessionRecord
        var waiters: [Waiter]
        var refusableWaiters: [Waiter]
        var unchanged: Bool
        var journal: SessionStateFile.JournalPosition?
        var file: SessionStateFile
        var opening: UInt64
    }

    /// Who a failed write answers, and with what (``drain(_:)``): the callers of the write and of the record queued
    /// behind it, with the failure, and those of ``saveUnlessRefused(_:)`` apart.
    private struct FailureAnswers {
        var failure: any Error
        var callers: [Waiter]
        var refusable: [Waiter]
        /// Whether the callers of ``saveUnlessRefused(_:)`` are answered ``RefusalPending``: another caller takes the
        /// failure back. A retry's round that took it back first, in a background save's way, could let watchers
        /// hear of changes whose calls were answered `StorageFailed`, as when it finds the refusal as it queues.
        /// Alone, the write was the round's own, and it takes the failure back.
        var leaveTheTakeBack = false

        func resume() {
            for caller in callers { caller.resume(throwing: failure) }
            for caller in refusable { caller.resume(throwing: leaveTheTakeBack ? RefusalPending() : failure) }
        }
    }

    /// A caller waiting on a write: a suspended ``save(_:)``, or a save queued ahead of its wait (``QueuedSave``).
    private enum Waiter: Sendable {
        case suspended(CheckedContinuation<Void, any Error>)
        case queued(QueuedSave)

        func resume() {
            resume(with: .success(()))
        }

        func resume(throwing error: any Error) {
            resume(with: .failure(error))
        }

        private func resume(with result: Result<Void, any Error>) {
            switch self {
            case .suspended(let caller): caller.resume(with: result)
            case .queued(let save): save.answer(result)
            }
        }
    }

    /// The most records ``SessionState/mayHold`` lists; past it, the file may hold anything since the last success.
    static let maxMayHold = 16

    /// A failed write of a session, as its callers get it: the system's error, and which of the session's failed
    /// writes it was. The session takes back what it held once, for the first caller that gets it
    /// (``isRefusing(_:)``): a later caller's take-back would take back changes made since, whose writes are allowed
    /// again.
    public struct WriteFailure: Error, CustomStringConvertible {
        /// What the system said.
        public let error: any Error
        /// Which of the daemon's failed writes it was, from 1.
        public let generation: UInt64
        /// The session's name.
        public let session: String
        /// The durable content of the record the failed write tried to write (stack, restorable states, screen
        /// numbers, reservation; its revision is 0): the file holds it, or what it held before that write. `nil` when
        /// no write was tried (``SessionReopened``). A take-back compares its catch-up with it: one that holds the same
        /// would only try that write again, which the retry does (`SessionRegistry.isCatchUpForTheRetry`).
        public let written: SessionRecord?

        public var description: String { "\(error)" }
    }

    private let directory: String
    /// Where the sessions' files are written: the disk, or a test's double.
    private let writes: any SessionFileWrites
    /// Where a caller that waited for a write resumes first, when it is not the global executor (see ``init``).
    private let resumeExecutor: (any TaskExecutor)?
    /// Where ``drain(_:)`` writes the sessions' records, one write at a time.
    private let writerQueue = DispatchQueue(label: "navhost.persistence")
    /// Hands the sessions to write to the writer while it polls after a write (``setWriterPollWindow(_:)``).
    private let handOff = SessionHandOff()
    private let states = Mutex<[String: SessionState]>([:])
    /// How many writes failed, of any session: the generation of the next failure is one more. One count for all, not
    /// one per session's state, which ``forget(_:)`` starts again: a failure of an earlier session of the name, still
    /// on its way to a caller, would have the generation of a new one's refusal, and clear it.
    private let failures = Atomic<UInt64>(0)
    /// The sessions written again after a failed write that may have reached the disk, until a write succeeds.
    private let rewrites: SessionRewrites

    /// The pauses of ``SessionRewrites`` in the daemon: 50 ms, doubling up to 5 s.
    private static let rewritePauses = SessionRewrites.Pauses(first: .milliseconds(50), longest: .seconds(5))

    /// Creates the persistence of sessions under `directory` (`<directory>/sessions/<name>.json` and `.journal`).
    ///
    /// - Parameter resumeExecutor: Where a caller of ``save(_:)`` that waited for the write resumes first. A Swift
    ///   continuation resumes its task on the global executor, which hops back to the caller's actor: for a caller on
    ///   the main actor that is a wake-up of a pool thread on the way. navhostd passes its main loop, so the writer
    ///   wakes the loop itself.
    public init(directory: String, resumeExecutor: (any TaskExecutor)? = nil) {
        self.directory = directory
        self.resumeExecutor = resumeExecutor
        self.writes = DiskWrites()
        self.rewrites = SessionRewrites(pauses: Self.rewritePauses)
    }

    /// Creates the persistence of sessions under `directory`, whose files are written through `writes`: a test's
    /// double of the disk, ``DiskWrites`` itself, or navhostd's slowed writes under its test hook
    /// (``DelayedDiskWrites``).
    ///
    /// - Parameters:
    ///   - resumeExecutor: As ``init(directory:resumeExecutor:)``'s: a serial one resumes the callers of a failed write
    ///     in the order the writer answers them.
    ///   - firstRewritePause: The first pause of ``rewriteAfterFailures(of:with:)``'s retry, 50 ms by default; the
    ///     longest is 5 s, or this one when it is longer (a test that wants no retry).
    package init(
        directory: String,
        writes: any SessionFileWrites,
        resumeExecutor: (any TaskExecutor)? = nil,
        firstRewritePause: Duration = .milliseconds(50)
    ) {
        self.directory = directory
        self.resumeExecutor = resumeExecutor
        self.writes = writes
        self.rewrites = SessionRewrites(
            pauses: SessionRewrites.Pauses(
                first: firstRewritePause,
                longest: max(firstRewritePause, Self.rewritePauses.longest)
            )
        )
    }

    /// Lets the writer look for the next session to write for `window` after each write before it leaves its thread
    /// (``SessionHandOff``); `nil`, the default, for never. navhostd gives it its event loop's busy-poll window when
    /// the loop polls: a client that answers each reply with its next state-changing call then finds the writer
    /// still there, and its record is written without a thread woken for it.
    public func setWriterPollWindow(_ window: Duration?) {
        handOff.window = window
    }

    /// Whether the writer polls for the next session to write, or writes one handed to it (tests).
    package var writerPolls: Bool { handOff.isPolling }

    /// How many sessions were handed to the polling writer so far, rather than written by a block of their own
    /// (tests).
    package var sessionsHandedToTheWriter: Int { handOff.handedOver }

    /// The file of session `name`.
    public func file(for name: String) -> SessionStateFile {
        SessionStateFile(directory: directory, session: name, writes: writes)
    }

    /// Returns once every write queued so far has finished, the writes of a session just closed among them.
    public func waitForQueuedWrites() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            handOff.blockQueued()
            writerQueue.async {
                self.handOff.blockStarted()
                done.resume()
            }
        }
    }

    /// Forgets what was written for the session `name` (its file was deleted): the next save writes in full.
    public func forget(_ name: String) {
        states.withLock { states in
            // Nor while a reopening waits for the name's writes to land (``writesLand(of:)``): it would wait for good.
            guard let state = states[name], !state.writing, state.pending == nil, state.landingWaiters.isEmpty else {
                return
            }
            states[name] = nil
        }
    }

    /// A session of the name `name` opens, other than over the wire (which waits for the earlier one's writes and
    /// forgets the name first): a reload, or a session opened again after a failure. The records an earlier session of
    /// the name queued are no longer newer than the new one's, whatever their revisions: the new session's records
    /// replace them, as that session can queue none any more. With `fileLost` — the session opens without a record
    /// while this process still knows what an earlier one wrote there (the file was deleted, or set aside as corrupt)
    /// — the file is taken as holding nothing too, and the next record is written in full, as a snapshot.
    ///
    /// A reload opens a name again only once the name's writes have landed (``writesLand(of:)``): nothing of the
    /// earlier session is queued then. Should a session be opened at once all the same, the callers waiting on the
    /// earlier session's queued record are answered here, with a failure (``SessionReopened``): that record is never
    /// written, and the new session's, which would have answered them, holds none of their changes. A record of it
    /// being written now answers its own callers; should that write fail, its failure refuses nothing of the new
    /// session's. Nor does an earlier failure whose changes the earlier session had not taken back yet: the refusal
    /// ends here. What that failure may have left in the file is the earlier session's last write's to take out, which
    /// a reload waits for (`SessionRegistry.settleClosedSessions`). The new session's first write replaces it too
    /// when that session did not read it from the file; one that did (the settle gave up) keeps it as its own.
    ///
    /// - Returns: The revision after every one the process gave the name, written, queued or reserved, for a session
    ///   that starts afresh to start at; `nil` when the process knows nothing of the name.
    @discardableResult
    public func sessionOpens(_ name: String, fileLost: Bool) -> UInt64? {
        states.withLock { states in
            guard let state = states[name] else { return nil }
            let revisions = [state.durable?.reservedRevision, state.pending?.revision, state.newest?.revision]
            state.newest = nil
            state.pending = nil
            state.openings += 1
            // The new session's records hold nothing of an earlier one's failed write, and that session's callers take
            // nothing back any more (its record is not its own): kept, the refusal refused the new session's first
            // saves, and its callers took their changes back for it.
            state.refusal = nil
            if !state.waiters.isEmpty || !state.refusableWaiters.isEmpty {
                let generation = failures.add(1, ordering: .relaxed).newValue
                let failure = WriteFailure(
                    error: SessionReopened(session: name),
                    generation: generation,
                    session: name,
                    written: nil
                )
                for waiter in state.waiters + state.refusableWaiters { waiter.resume(throwing: failure) }
                state.waiters = []
                state.refusableWaiters = []
            }
            if fileLost {
                state.durable = nil
                state.journal = nil
            }
            return (revisions.compactMap { $0 }.max() ?? 0) + 1
        }
    }

    /// Why a change was not written: a session of its name opened (a reload) before its record was, and the new
    /// session's records replace it (``sessionOpens(_:fileLost:)``).
    public struct SessionReopened: Error, CustomStringConvertible {
        /// The session's name.
        public let session: String

        public var description: String {
            "session \"\(session)\" was opened again by a reload before this change was written; the change is not kept"
        }
    }

    /// Records that `record` is what the file of its session holds (after a restore), so an equal save is free.
    public func assumeDurable(_ record: SessionRecord) {
        states.withLock { Self.state(of: record.session, in: &$0).durable = record.durableContent }
    }

    /// Whether `record` needs no write: nothing of its session is being written or waits to be, and what it keeps
    /// across a crash (stack and restorable states) is what the file holds.
    public func isDurable(_ record: SessionRecord) -> Bool {
        states.withLock { states in
            states[record.session]?.holdsDurably(record) == true
        }
    }

    /// Whether the file of `record`'s session holds its stack and restorable states, whatever its bookkeeping (screen
    /// numbers, revision reservation) says, and whichever failed write since the last success reached the disk.
    public func holdsStack(of record: SessionRecord) -> Bool {
        states.withLock { $0[record.session]?.fileHoldsStack(of: record) == true }
    }

    /// Whether the last write that succeeded wrote `record`'s stack and restorable states: when a write that failed
    /// since reached the disk, the file may hold another (``holdsStack(of:)`` says whether it does).
    public func wroteStack(of record: SessionRecord) -> Bool {
        states.withLock { states in
            guard let durable = states[record.session]?.durable else { return false }
            return SessionRecord.isSameStack(durable.stack, record.stack)
        }
    }

    /// The failed write of session `name` whose changes the session has not taken back yet, if there is one: its
    /// records are refused until it does (``takenBack(_:generation:)``).
    public func refusal(of name: String) -> WriteFailure? {
        states.withLock { $0[name]?.refusal }
    }

    /// Whether `failure` still refuses its session's records: the session has not taken back what that write held
    /// (``takenBack(_:generation:)``). A caller that gets a failure no longer refusing must take nothing back: the
    /// first caller of that write did, and what the session holds now was made since.
    public func isRefusing(_ failure: WriteFailure) -> Bool {
        states.withLock { $0[failure.session]?.refusal?.generation == failure.generation }
    }

    /// Whether the file of session `name` reserves `revision`: it is below the reservation, which a session restored
    /// from the file starts at (with the state the file holds) and continues above, so it is never given out again.
    public func reserves(_ revision: UInt64, of name: String) -> Bool {
        reservedRevision(of: name).map { revision < $0 } ?? false
    }

    /// The revision a session restored from the file of session `name` starts at: those below it are reserved. `nil`
    /// when this process neither wrote nor read the file.
    public func reservedRevision(of name: String) -> UInt64? {
        states.withLock { states in states[name]?.durable?.reservedRevision }
    }

    /// Records that the session `name` took back what its failed write of `generation` held (any, when `nil`): its
    /// records are written again. Until then they are refused with that write's failure, since they hold the changes
    /// it failed to write.
    public func takenBack(_ name: String, generation: UInt64? = nil) {
        states.withLock { states in
            guard let refusal = states[name]?.refusal, generation == nil || refusal.generation == generation else {
                return
            }
            states[name]?.refusal = nil
        }
    }

    // MARK: Rewriting after a failure

    /// How a round of the retry after a failed write went (``rewriteAfterFailures(of:with:)``).
    public enum RewriteRound: Sendable {
        /// The session's current state was saved (or its save failed, and the retry goes on).
        case saved
        /// Nothing was written: a failed write of the session refuses its records until one of its callers takes it
        /// back (``refusal(of:)``), and they all wait for that. The next round comes after the same pause.
        case waitingForTakeBack
        /// There is no session to write any more: the retry ends.
        case sessionGone
    }

    /// Records how to write the current state of session `name` (with ``save(_:)``, taking the record and saving it
    /// in one stretch of the session's actor): after a failed write of the session whose record may have reached the
    /// disk, it is called after a pause of 50 ms, doubling up to 5 s, until a write of the session succeeds. Without
    /// it, a refused change that landed stayed in the file until the session's next write that succeeded, and a crash
    /// meanwhile brought it back. It says ``RewriteRound/sessionGone`` when the session is gone, which ends the retry;
    /// so does ``stopRewriting(_:)``. While a refusal is pending it writes nothing (``RewriteRound/waitingForTakeBack``):
    /// the refused save would take the change back itself, in a background save's way, before the failed caller does.
    public func rewriteAfterFailures(
        of name: String,
        with rewrite: @escaping @Sendable () async -> RewriteRound
    ) {
        rewrites.register(name, rewrite: rewrite)
    }

    /// Runs the rewrite recorded for session `name` once, as a round of its retry does, from the caller's actor
    /// (tests); `nil` when none is.
    package nonisolated(nonsending) func rewriteOnce(_ name: String) async -> RewriteRound? {
        await rewrites.rewrite(of: name)?()
    }

    /// Stops writing session `name` again after failures, and forgets how to (it closed, or the daemon is stopping).
    public func stopRewriting(_ name: String) {
        rewrites.remove(name)
    }

    /// Whether session `name` is being written again after a failure (tests).
    package func isRewriting(_ name: String) -> Bool {
        rewrites.isRetrying(name)
    }

    /// The task that writes session `name` again after a failure, while it does (tests): it ends with the retry,
    /// even once ``stopRewriting(_:)`` forgot it.
    package func runningRewrite(of name: String) -> Task<Void, Never>? {
        rewrites.runningRetry(of: name)
    }

    /// Whether the file of session `name` may hold a record whose write failed: no write of it succeeded since.
    public func mayHoldFailedWrite(of name: String) -> Bool {
        states.withLock { $0[name].map { $0.mayHold != [] } ?? false }
    }

    /// How many callers of ``save(_:)`` and ``saveUnlessRefused(_:)`` of session `name` wait on the write under way,
    /// and on the record queued behind it, and how many of the latter are ``saveUnlessRefused(_:)``'s (tests): a test
    /// that needs a save queued waits for it.
    package func callersWaiting(of name: String) -> (onTheWrite: Int, queued: Int, queuedUnlessRefused: Int) {
        states.withLock { states in
            guard let state = states[name] else { return (0, 0, 0) }
            let queued = state.waiters.count + state.refusableWaiters.count
            return (state.callersWritten, queued, state.refusableWaiters.count)
        }
    }

    /// Whether a record of session `name` is being written or waits to be: a write whose failure is not known yet.
    public func isWriting(_ name: String) -> Bool {
        states.withLock { $0[name]?.writing == true }
    }

    /// Returns once no record of session `name` is being written or waits to be (``isWriting(_:)``): every write of the
    /// name queued so far, and any queued while they are written, has landed or failed. At once when none is.
    ///
    /// A session that opens under the name from its file waits for it first: read before such a write landed, the file
    /// lacked a change answered done, and the new session's first record wrote over it.
    public func writesLand(of name: String) async {
        await withCheckedContinuation { (landed: CheckedContinuation<Void, Never>) in
            let writing = states.withLock { states in
                guard states[name]?.writing == true else { return false }
                states[name]?.landingWaiters.append(landed)
                return true
            }
            if !writing { landed.resume() }
        }
    }

    /// Answers the callers of ``writesLand(of:)`` for `session`, unless a write of it was queued since its writer
    /// ended: the writer started for it answers them when it ends in turn.
    private func answerLandingWaiters(of session: String) {
        let landed = states.withLock { states -> [CheckedContinuation<Void, Never>] in
            guard let state = states[session], !state.writing else { return [] }
            defer { states[session]?.landingWaiters = [] }
            return state.landingWaiters
        }
        for waiter in landed { waiter.resume() }
    }

    // MARK: Saving

    /// Saves `record` and returns once it, or a newer record of the same session, is durable.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`): a record that is durable already is answered in the
    /// caller's stretch, without leaving the main actor, and any other is queued in that stretch, before the caller
    /// suspends, with a resume executor too. The write itself is the writer thread's.
    ///
    /// - Throws: The write's failure; the daemon must not acknowledge the change then.
    public nonisolated(nonsending) func save(_ record: SessionRecord) async throws {
        if saveAtOnce(record) { return }
        _ = try await queueAndWait(for: record, unlessRefused: false)
    }

    /// ``save(_:)``'s part that needs no wait: takes `record` as its session's newest and tells whether it, or a
    /// newer record, is durable already (an intent that changed nothing kept across a crash, the common case). When
    /// it is not, ``save(_:)`` writes it.
    public func saveAtOnce(_ record: SessionRecord) -> Bool {
        states.withLock { states in
            Self.takeNewest(record, into: Self.state(of: record.session, in: &states)).isDurable
        }
    }

    /// ``save(_:)``, unless a failed write of the session refuses its records (``refusal(of:)``): then it queues nothing
    /// and returns `false`, throwing nothing. Looked at under the lock that queues the record: a failure the writer
    /// records between a look beforehand and the queueing would refuse the save, and its caller take the change back
    /// in a background save's way, before the failed callers (the retry's rounds,
    /// ``rewriteAfterFailures(of:with:)``). So does a write that fails once the record is queued, and answers another
    /// caller too (the record waited behind that caller's write, or was written with its record): this call returns
    /// `false` then, and leaves the take-back to that caller; it throws the failure only when it was the write's one
    /// caller, and then takes it back itself.
    public nonisolated(nonsending) func saveUnlessRefused(_ record: SessionRecord) async throws -> Bool {
        if saveAtOnce(record) { return true }
        return try await queueAndWait(for: record, unlessRefused: true)
    }

    /// Queues `record` at once, in the caller's stretch, as ``save(_:)`` (or, `unlessRefused`, ``saveUnlessRefused(_:)``)
    /// would, and returns the save, whose outcome ``outcome(of:)`` awaits later. For a save that must be in the queue
    /// before anything its caller does next can run: a task that called ``save(_:)`` would queue it only once it runs.
    public func queue(_ record: SessionRecord, unlessRefused: Bool = false) -> QueuedSave {
        let save = QueuedSave()
        enqueue(record, waiter: .queued(save), unlessRefused: unlessRefused)
        return save
    }

    /// Returns once the save ``queue(_:unlessRefused:)`` queued is answered, on the resume executor when there is one,
    /// as ``save(_:)`` does: `true` when its record, or a newer one, is durable; `false` when it was queued
    /// `unlessRefused` and a refusal kept it out, or its failure is another caller's to take back. Once for a save, by
    /// the caller that queued it: a second wait while the first is suspended stops the process (a precondition), since
    /// the first would never resume.
    ///
    /// - Throws: The write's failure.
    public nonisolated(nonsending) func outcome(of save: QueuedSave) async throws -> Bool {
        do {
            if let resumeExecutor {
                try await withTaskExecutorPreference(resumeExecutor) { try await save.answered() }
            } else {
                try await save.answered()
            }
            return true
        } catch is RefusalPending {
            return false
        }
    }

    /// Queues `record` in the caller's stretch and returns once it, or a newer record, is durable; `false` when a
    /// failed write refused it (`unlessRefused` only). With a resume executor (the daemon's main loop) it is
    /// ``queue(_:unlessRefused:)`` and ``outcome(of:)``, so that the writer resumes the caller there; without one, the
    /// caller suspends on the writer's answer (``wait(for:unlessRefused:)``), with no ``QueuedSave`` to make.
    ///
    /// Queued before the hop: a closure given the executor preference runs on that executor, a job later, after
    /// whatever the caller's actor ran meanwhile. Until session 52 the record was queued there, and a background save's
    /// record taken before a refused `OpenSession` closed its session reached the writer after the emptied record's
    /// failed write had ended the order of its records (``drain(_:)``): written over it, it landed, nothing said a
    /// write may be missing, and the name's next session opened with the refused one's stack.
    private nonisolated(nonsending) func queueAndWait(
        for record: SessionRecord,
        unlessRefused: Bool
    ) async throws -> Bool {
        if resumeExecutor != nil { return try await outcome(of: queue(record, unlessRefused: unlessRefused)) }
        do {
            try await wait(for: record, unlessRefused: unlessRefused)
            return true
        } catch is RefusalPending {
            return false
        }
    }

    /// Why ``saveUnlessRefused(_:)`` queued nothing.
    private struct RefusalPending: Error {}

    /// Queues `record` and returns once it, or a newer record of its session, is durable.
    ///
    /// - Parameter unlessRefused: Throws ``RefusalPending`` rather than the refusal when a failed write of the session
    ///   refuses its records (``saveUnlessRefused(_:)``).
    private nonisolated(nonsending) func wait(for record: SessionRecord, unlessRefused: Bool = false) async throws {
        // `enqueue` orders records by revision, not by arrival, whoever calls.
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            enqueue(record, waiter: .suspended(waiter), unlessRefused: unlessRefused)
        }
    }

    /// Saves `record` in the background: for changes no client waits on (a ViewModel's own state change).
    ///
    /// Queued at once, in call order: a later ``save(_:)`` never gets overtaken by an older record.
    public func submit(_ record: SessionRecord) {
        enqueue(record, waiter: nil)
    }

    /// Queues `record`, or, when a newer record of its session was queued already, that newer one again: its write
    /// covers this change too, and the file never goes back to an older record.
    private func enqueue(
        _ record: SessionRecord,
        waiter: Waiter?,
        unlessRefused: Bool = false
    ) {
        let startWriter: Bool = states.withLock { states in
            // One look-up of the session's state, which is then changed where it is.
            Self.enqueue(
                record,
                waiter: waiter,
                unlessRefused: unlessRefused,
                into: Self.state(of: record.session, in: &states)
            )
        }
        guard startWriter, !handOff.handOff(record.session) else { return }
        writerQueue.async {
            self.handOff.blockStarted()
            self.write(from: record.session)
        }
    }

    /// The state of session `name` in `states`, added empty when there is none.
    private static func state(of name: String, in states: inout [String: SessionState]) -> SessionState {
        if let state = states[name] { return state }
        let state = SessionState()
        states[name] = state
        return state
    }

    /// ``enqueue(_:waiter:)`` on the session's state; whether a writer must be started.
    private static func enqueue(
        _ record: SessionRecord,
        waiter: Waiter?,
        unlessRefused: Bool,
        into state: SessionState
    ) -> Bool {
        if let refusal = state.refusal {
            // Taken before the session took back what the failed write held: it holds that too, unless what it
            // keeps is on disk already. Written once the disk came back, it put a refused change on disk.
            if state.holdsDurably(record) {
                waiter?.resume()
            } else {
                waiter?.resume(throwing: unlessRefused ? RefusalPending() : refusal)
            }
            return false
        }
        let (record, isDurable) = takeNewest(record, into: state)
        if isDurable {
            waiter?.resume()
            return false
        }
        state.pending = record
        if let waiter {
            if unlessRefused {
                state.refusableWaiters.append(waiter)
            } else {
                state.waiters.append(waiter)
            }
        }
        guard !state.writing else { return false }
        state.writing = true
        return true
    }

    /// Keeps the newer of `record` and the newest record queued so far, and says which it is and whether it needs
    /// no write (nothing being written or waiting, and its durable content on disk already).
    private static func takeNewest(
        _ record: SessionRecord,
        into state: SessionState
    ) -> (record: SessionRecord, isDurable: Bool) {
        let record = state.newest.map { $0.revision > record.revision ? $0 : record } ?? record
        state.newest = record
        return (record, state.holdsDurablySharingStack(record))
    }

    /// Writes `session`'s records, then those of the sessions handed to the writer while it writes or polls
    /// (``SessionHandOff``); it polls only after a write that answered a caller. Runs on ``writerQueue``.
    private func write(from session: String) {
        var next: String? = session
        while let session = next {
            let answeredCallers = drain(session)
            next = handOff.nextSession(polling: answeredCallers)
        }
    }

    /// Writes the session's newest pending record until none is left, and tells whether a caller waited on any of
    /// its writes (a background save has none). Runs on ``writerQueue``.
    private func drain(_ session: String) -> Bool {
        var answeredCallers = false
        while true {
            let next = states.withLock { states in
                states[session]?.takePending { file(for: session) }
            }
            guard let next else {
                answerLandingWaiters(of: session)
                return answeredCallers
            }
            let (record, waiters) = (next.record, next.waiters)
            if !waiters.isEmpty || !next.refusableWaiters.isEmpty { answeredCallers = true }
            if next.unchanged {
                for waiter in waiters + next.refusableWaiters { waiter.resume() }
                continue
            }
            do {
                let position = try next.file.write(record, after: next.journal)
                states.withLock { states in states[session]?.wrote(record, at: position) }
                for waiter in waiters + next.refusableWaiters { waiter.resume() }
            } catch {
                // A record queued meanwhile holds the change that failed too: it fails with it, so that nothing the
                // daemon took back reaches the disk later. The next record starts the order afresh.
                let answers = states.withLock { states -> FailureAnswers in
                    var answers = FailureAnswers(failure: error, callers: waiters, refusable: next.refusableWaiters)
                    guard let state = states[session] else { return answers }
                    let generation = failures.add(1, ordering: .relaxed).newValue
                    let failure = WriteFailure(
                        error: error,
                        generation: generation,
                        session: session,
                        written: record.durableContent
                    )
                    answers.failure = failure
                    // What it wrote may be on disk: the next record is written, as a new snapshot, even one that
                    // holds what the last write that succeeded held (the take-back's).
                    state.failedToWrite(record)
                    // The journal may end in part of the failed line: the next write starts a new snapshot.
                    state.journal = nil
                    // The record of a session of the name a reload has replaced since: the records queued now are the
                    // new session's, which hold nothing of it, and are written; its own callers alone get the failure.
                    guard state.openings == next.opening else { return answers }
                    answers.callers += state.waiters
                    answers.refusable += state.refusableWaiters
                    state.waiters = []
                    state.refusableWaiters = []
                    state.pending = nil
                    state.newest = nil
                    // Refused until the session has taken the changes back, which each failed caller does (a
                    // background save with no caller has none to do it).
                    if !answers.callers.isEmpty || !answers.refusable.isEmpty { state.refusal = failure }
                    answers.leaveTheTakeBack = !answers.callers.isEmpty
                    return answers
                }
                answers.resume()
                // What it wrote may be on disk, and nothing else may write over it: the session's take-back may fail
                // too, or find its stack written (then it writes nothing).
                if mayHoldFailedWrite(of: session) {
                    rewrites.start(session) { [weak self] in self?.mayHoldFailedWrite(of: session) ?? false }
                }
            }
        }
    }
}
