public import Logging
import NavHostKit
public import NavHostStorage
public import NavHostWire

/// The daemon's sessions by name, each an independent stack over the same features.
@MainActor
public final class SessionRegistry {
    // MARK: Private Properties

    private var sessions = OpenSessions()
    /// The way back to the registry for its sessions' writers and watchers and its own tasks, which may outlive it
    /// (not a weak reference, which would put every retain of the registry on the runtime's slow path).
    let backlink = Backlink<SessionRegistry>()
    private var listWatchers: [ObjectIdentifier: SessionListWatcher] = [:]
    /// The names an OpenSession or CloseSession is under way for, each with its calls taking turns.
    var busyNames: [String: Turns] = [:]
    /// The names whose session waits to open until the writes of an earlier session of the name land
    /// (``openOnceEarlierWritesLand(_:options:)``).
    var namesAwaitingEarlierWrites: Set<String> = []
    /// The changes of the list of opened sessions, each made and written in its turn (`changingOpenedList`).
    let openedListChanges = Turns()
    /// The last write of the list of opened sessions that a configuration's taking over of some of them began
    /// (``declareConfiguredSessions(_:)``); each waits for the one before.
    var adoptionWrite: Task<Void, Never>?
    /// Whether the last write of the list that a taking over began failed: the list on disk may still name sessions
    /// the configuration declares, and the next declaration writes it again.
    var adoptedListUnwritten = false
    /// Why the list of opened sessions could not be read at start, if it could not: opening and closing sessions
    /// over the wire is refused then, rather than overwrite a list that may hold sessions.
    var openedListProblem: String?
    let logger: Logger
    let persistence: SessionPersistence?
    /// Where the sessions opened over the wire are listed, so that they come back after a restart.
    let openedFile: OpenedSessionsFile?
    /// Each session's last failed write, in the system's words, for a call whose change a take-back covered. Kept
    /// when the session closes (the last write at its close may take back, and its callers still read it); a session
    /// opened under the name starts without it.
    private var lastWriteFailure: [String: String] = [:]
    /// The sessions closed whose last write may not have landed yet, by name: their file may hold a failed write, or a
    /// write of theirs was under way as they closed, and may fail (``settleClosedSessions()``).
    private(set) var closedUnsettled: [String: UnsettledSession] = [:]
    /// The session the stop or a reload closed last under each name, while its file held no failed write and no write
    /// of it was under way: a call of it still under way may write after the close, and fail
    /// (``keepForTheSettle(_:afterACallersFailure:)``). Not held, only its backlink: once its callers are done, a
    /// failure of theirs has kept it in ``closedUnsettled`` already; the entries of sessions gone are dropped at each
    /// close.
    private var closedKeepingRecords: [String: Backlink<NavigationSession>] = [:]
    /// The settle under way, which every caller of ``settleClosedSessions()`` waits for.
    private var settling: Task<Void, Never>?
    /// The take-back under way (``TakeBackUnderWay``), which the catch-up event it records is saved or held by.
    private var takeBackUnderWay: TakeBackUnderWay?
    /// The replays under way, by the name of the session each opened, each with a number of its own: a replay closes
    /// its session only while it is still the one it opened (a client may close it and open another of the name).
    var replaysUnderWay: [String: Int] = [:]
    /// The number of the next replay.
    var nextReplayNumber = 0

    // MARK: Public Properties

    /// The features every session builds screens from.
    public let catalog: FeatureCatalog

    /// The plugins loaded now, with their versions, for a flight recording's header (the daemon sets it).
    public var loadedPlugins: @MainActor () -> [SessionRecording.Plugin] = { [] }

    /// Called once a `CloseSession`, or a replay's closing of its session, has run (done or refused), unless the
    /// daemon is stopping: what the closed session held, like a plugin whose removal its root refused, may go now
    /// (the plugin host sets it).
    public var onSessionClosed: (@MainActor (String) -> Void)?
    /// Opens the configuration's sessions that are not open (the daemon sets it). Called when a call that held a name
    /// the configuration declares (an OpenSession, a CloseSession, a replay) lets it go with no session open under
    /// it: a reload that declared the name meanwhile left its session to open (``isBusy(_:)``).
    public var openConfiguredSessions: (@MainActor () -> Void)?
    /// Why each session opened over the wire that could not open again did not, as ``openListedSessions()`` last
    /// logged it.
    public var listedOpenFailures = SessionOpenFailures()

    /// The sessions' names, sorted.
    public var names: [String] { sessions.names.sorted() }

    /// Every session, sorted by name.
    public var all: [NavigationSession] { names.compactMap { sessions[$0] } }

    /// The sessions opened over the wire (``openDurably(_:base:)``), by name; the others came from the
    /// configuration.
    public internal(set) var opened: [String: OpenedSessionsFile.Entry] = [:]

    /// The sessions the daemon's configuration declares: they are opened and closed by the configuration, so
    /// OpenSession and CloseSession refuse them (`SessionConfigured`). Set at start and on every reload
    /// (``declareConfiguredSessions(_:)``).
    public internal(set) var configuredNames: Set<String> = []

    /// The options a session opened over the wire starts from (the daemon's limits); what it sets itself overrides
    /// them. A configuration reload replaces them (``updateDefaultOptions(_:)``).
    public private(set) var defaultOptions = SessionOptions()

    /// Where the callers of every session's intents answered `IntentTimedOut`, or whose screen another call closed,
    /// wait for the store writes under way then; ``shutDown()`` ends those waits, whichever session they belong to,
    /// open or closed since.
    let storeWriteWaits: StoreWriteWaits

    /// Replaces ``defaultOptions``, and puts them in force in every session opened over the wire, with what each
    /// set itself.
    public func updateDefaultOptions(_ options: SessionOptions) {
        defaultOptions = options
        for (name, entry) in opened { sessions[name]?.updateOptions(entry.options(over: options)) }
    }

    // MARK: Initialization

    /// What happened to each session's saved state when it was opened, for the operator.
    public private(set) var restoreNotes: [String: RestoreNote] = [:]

    /// What opening a session found on disk.
    public enum RestoreNote: Sendable, Equatable {
        /// No saved state: a fresh session.
        case fresh
        /// Restored; these screens could not come back.
        case restored(dropped: [NavigationSession.DroppedScreen])
        /// The saved state could not be trusted and was moved aside; the session started fresh.
        case discarded(reason: SessionStateFile.DiscardReason, movedTo: String)
    }

    /// Creates an empty registry over `catalog`; with `persistence`, sessions are restored when opened and every
    /// change is saved; with `openedSessions`, the sessions opened over the wire are listed there.
    public init(
        catalog: FeatureCatalog,
        persistence: SessionPersistence? = nil,
        openedSessions: OpenedSessionsFile? = nil,
        logger: Logger
    ) {
        self.catalog = catalog
        self.persistence = persistence
        self.openedFile = openedSessions
        self.logger = logger
        self.storeWriteWaits = StoreWriteWaits(logger: logger)
        backlink.point(to: self)
    }

    /// Runs where the last reference is let go, which must be the main actor: the registry's ``backlink`` is read there
    /// and is not atomic (``Backlink``; debug builds trap otherwise).
    deinit {
        backlink.clear()
    }

    // MARK: Public Functions

    /// Opens a session rooted at `configuration.root`, replacing none: a name can be opened once. Its saved record,
    /// if there is one, brings back its stack. The file is read now, even while a write of an earlier session of the
    /// name is under way: the daemon's reloads open through ``openOnceEarlierWritesLand(_:options:)``, which waits for
    /// it.
    @discardableResult
    public func open(
        _ configuration: SessionConfiguration,
        options: SessionOptions = SessionOptions()
    ) throws(NavigationError) -> NavigationSession {
        try open(configuration, options: options, fresh: nil)
    }

    /// Opens a session; with `fresh`, at its root, ignoring any saved record, its revisions and screen numbers
    /// starting at `fresh`'s (above those an earlier session of the name gave out).
    func open(
        _ configuration: SessionConfiguration,
        options: SessionOptions,
        fresh: FreshStart?
    ) throws(NavigationError) -> NavigationSession {
        if let existing = sessions[configuration.name] { return existing }
        // Every session's waits for an intent's store writes are the registry's, which its stop ends.
        var options = options
        options.storeWriteWaits = storeWriteWaits
        let session: NavigationSession
        let loaded: SessionStateFile.Loaded = fresh == nil ? loadRecord(of: configuration.name) : .none
        switch loaded {
        case .record(let record):
            persistence?.sessionOpens(configuration.name, fileLost: false)
            session = try NavigationSession(
                restoring: record,
                configuration: configuration,
                catalog: catalog,
                options: options,
                logger: logger
            )
            restoreNotes[configuration.name] = .restored(dropped: session.droppedOnRestore)
            let lost = session.droppedOnRestore.map(\.id) + session.startedFreshOnRestore
            if lost.isEmpty {
                persistence?.assumeDurable(record)
            } else {
                keepAside(record, losing: lost, at: "a restart")
            }
        case let loaded:
            session = try NavigationSession(
                configuration: configuration,
                catalog: catalog,
                options: options,
                // A reload that opens a session whose file went since an earlier one of the name wrote it starts past
                // that one's revisions.
                firstRevision: fresh?.revision ?? persistence?.sessionOpens(configuration.name, fileLost: true) ?? 0,
                firstScreenNumber: fresh?.screenNumber ?? 1,
                logger: logger
            )
            if case .discarded(let reason, let movedTo) = loaded {
                restoreNotes[configuration.name] = .discarded(reason: reason, movedTo: movedTo)
            } else {
                restoreNotes[configuration.name] = .fresh
            }
        }
        // The file is the new session's: what an earlier one of the name left in it is written over by its records.
        lastWriteFailure[configuration.name] = nil
        // A closed session the settle was writing is given up: its run of failures ends unsaved.
        if let unsettled = closedUnsettled.removeValue(forKey: configuration.name) {
            endFailureRun(of: unsettled.session, closing: true)
        }
        closedKeepingRecords[configuration.name] = nil
        if let directory = options.flightRecorderDirectory {
            session.keepRecording(in: directory) { [backlink] in backlink.owner?.loadedPlugins() ?? [] }
        }
        if let persistence {
            session.holdsEventsUntilDurable = true
            session.observeChanges { [backlink] session, event in
                backlink.owner?.persist(session, through: event.revision)
            }
            persistence.rewriteAfterFailures(of: configuration.name) {
                @MainActor [backlink, sessionBacklink = session.backlink] in
                guard let registry = backlink.owner, let session = sessionBacklink.owner, registry.isOpen(session),
                    !registry.hasLostItsRecord(session)
                else { return .sessionGone }
                // A failed caller, behind on the main actor, takes the refused changes back: a save now would be
                // refused and take them back itself, as a background save, which may let watchers hear of changes
                // whose calls were answered `StorageFailed`. Looked at as the save is queued, under the persistence's
                // lock: a failure the writer records after a look beforehand refused the save all the same.
                return await registry.saveInBackground(session, unlessRefused: true) ? .saved : .waitingForTakeBack
            }
            persist(session, through: session.revision)
        }
        sessions.insert(session)
        publish(SessionListEvent(.opened, configuration.name))
        return session
    }

    /// Starts a watcher of the session list: the names first, then one event per session opened or closed.
    public func watchNames(limit: Int = 64) -> SessionListWatcher {
        let watcher = SessionListWatcher(limit: limit, first: .snapshot(names, coalesced: false)) {
            [backlink] watcher in
            let id = ObjectIdentifier(watcher)
            Task { @MainActor in backlink.owner?.listWatchers[id] = nil }
        }
        listWatchers[ObjectIdentifier(watcher)] = watcher
        return watcher
    }

    /// Takes the session `name` out of the registry, tells the list's watchers, and closes it; then queues its last
    /// write. Closed first: a take-back that write makes (a failed write its callers have not taken back yet) builds
    /// no screen in it (``NavigationSession/takeBackUnreleasedChanges()``).
    func closeSession(named name: String) -> NavigationSession? {
        guard let session = sessions.remove(named: name) else { return nil }
        restoreNotes[name] = nil
        publish(SessionListEvent(.closed, name))
        session.close()
        // A reload's close: nothing else waits for its last write (the stop and a refused OpenSession do).
        if queueLastWrite(of: session) { Task { await settleClosedSessions() } }
        return session
    }

    private func publish(_ event: SessionListEvent) {
        for watcher in listWatchers.values { watcher.deliver(event) { self.names } }
    }

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
    private func writeOverTheFailureLands(_ session: NavigationSession) async {
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
    private func recordToWrite(_ session: NavigationSession, takeBacks: Int) throws -> SessionRecord? {
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
    private func persist(_ session: NavigationSession, through revision: UInt64) {
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
    private func saveInBackground(
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
    private func savedInBackground(_ session: NavigationSession, _ record: SessionRecord, through revision: UInt64) {
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
    private func isCatchUpForTheRetry(_ record: SessionRecord, of session: NavigationSession) -> Bool {
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
    private func takeBack(
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
    private func writeOverTheFailedWrite(
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
    private func queueOverTheFailedWrite(
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

    /// The session called `name`, or the default session when `name` is `nil`.
    public func session(_ name: String? = nil) throws(NavigationError) -> NavigationSession {
        let name = name ?? SessionConfiguration.defaultName
        guard let session = sessions[name] else { throw sessionNotOpen(name) }
        return session
    }

    /// `SessionNotFound` for `name`, saying why when the name is declared but its session could not open.
    private func sessionNotOpen(_ name: String) -> NavigationError {
        let reason: String
        if isShutDown {
            // A call the stop had already received, answered while the sessions are closed: not a session gone.
            return NavigationError(
                .sessionNotFound,
                "session \"\(name)\" is closed: the daemon is stopping",
                parameters: ["session": .string(name), "reason": "the daemon is stopping"]
            )
        } else if namesAwaitingEarlierWrites.contains(name) {
            reason = "opening once the last changes of the session closed under this name are written"
            return NavigationError(
                .sessionNotFound,
                "session \"\(name)\" is \(reason); try again shortly",
                parameters: ["session": .string(name), "reason": .string(reason)]
            )
        } else if let entry = opened[name] {
            reason = "opened over the wire, but its root route \"\(entry.root)\" cannot be opened now"
        } else if configuredNames.contains(name) {
            reason = "declared by the configuration, but its root route cannot be opened now"
        } else {
            return .sessionNotFound(name)
        }
        return NavigationError(
            .sessionNotFound,
            "session \"\(name)\" is \(reason) (the daemon's log says why; it opens once the route's plugin loads)",
            parameters: ["session": .string(name), "reason": .string(reason + "; see the daemon's log")]
        )
    }

    private func loadRecord(of name: String) -> SessionStateFile.Loaded {
        guard let persistence else { return .none }
        do {
            let loaded = try persistence.file(for: name).load()
            if case .discarded(let reason, let movedTo) = loaded {
                logger.error(
                    "Saved session state could not be trusted; moved it aside and started fresh",
                    metadata: ["navhost.session": "\(name)", "reason": "\(reason)", "navhost.file": "\(movedTo)"]
                )
            }
            return loaded
        } catch {
            logger.error(
                "Cannot read saved session state; starting fresh",
                metadata: ["navhost.session": "\(name)", "error": "\(error)"]
            )
            return .none
        }
    }

    /// Returns once every write queued so far has finished. (The stop waits for ``settleClosedSessions()``, which
    /// also writes again what a failure dropped.)
    public func waitForQueuedWrites() async {
        await persistence?.waitForQueuedWrites()
    }

    /// Queues one last write of `session`'s current state as it closes without a durable close (the stop, a reload
    /// that no longer declares it) — or, closed durably (`CloseSession`, a refused `OpenSession`), of its record
    /// emptied — when its file may hold a record whose write failed: its retry stops
    /// (``SessionPersistence/stopRewriting(_:)``), and the file kept the refused change, which the next start, or a
    /// reload that declares the name again, opened the session from. Queued in the stretch that closes it: nothing
    /// changes the session after. A failed write its callers have not taken back yet is taken back first (they find
    /// it done, and answer `StorageFailed` as they would): until then the session holds the refused change.
    private func writeOnceMore(_ session: NavigationSession) {
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
    private func queueLastWrite(of session: NavigationSession) -> Bool {
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
    private func lastWriteMayNotLand(of name: String) -> Bool {
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
    private func writeClosedSessionsUntilSettled() async {
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

    /// Whether ``shutDown()`` ran: the daemon is stopping, and sessions are neither opened nor closed any more
    /// (``SessionsShutDown``).
    public private(set) var isShutDown = false

    /// Closes every session for good, as the daemon stops: opening or closing a session afterwards is refused with
    /// ``SessionsShutDown``. The records and the list of opened sessions stay as they are, for the next start; a
    /// session whose file may hold a failed write is written once more (``settleClosedSessions()`` waits for it).
    public func shutDown() {
        isShutDown = true
        // Before the sessions close, so that the callers of the intents their closes answer `screenClosed` wait no
        // longer than those of intents answered `IntentTimedOut` before: a write under way gets the grace to land.
        storeWriteWaits.endAll(after: Self.storeWriteGraceAtStop)
        closeAll(stopping: true)
    }

    /// Closes every session: screens get `onDisappear`, watchers end, and so do the session list's — with
    /// ``Watcher/Ending/stopping`` when the daemon is `stopping`, so that their clients tell it from a session closed.
    public func closeAll(stopping: Bool = false) {
        for session in sessions.all {
            // Closed first, as ``closeSession(named:)`` does: a take-back its last write makes builds no screen.
            session.close(stopping: stopping)
            queueLastWrite(of: session)
        }
        sessions.removeAll()
        for watcher in listWatchers.values { watcher.finish(with: stopping ? .stopping : .closed) }
        listWatchers.removeAll()
    }
}

// MARK: - Take-backs

extension SessionRegistry {
    /// A take-back under way (``SessionRegistry/takeBackUnderWay``): of which session, what the failed write it takes
    /// back tried to write (`nil` when that is not known), and whether a change it recorded needs a save. Its catch-up
    /// event is held for the persistence's retry, rather than saved, only when it holds just what that write tried
    /// (``SessionRegistry/isCatchUpForTheRetry(_:of:)``); any other is saved by the take-back, at its end.
    struct TakeBackUnderWay {
        let session: ObjectIdentifier
        let failedWrite: SessionRecord?
        /// Whether the take-back recorded a change that needs a save: its catch-up, when not held for the retry, or a
        /// change a screen it built again made as it appeared.
        var catchUpToSave = false
    }
}

// MARK: - Fresh start

extension SessionRegistry {
    /// Where a session opened afresh under a name starts: past what an earlier session of the name gave out.
    struct FreshStart {
        /// Its first revision.
        let revision: UInt64
        /// The number of its root's ID, `s<number>`.
        let screenNumber: Int
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
