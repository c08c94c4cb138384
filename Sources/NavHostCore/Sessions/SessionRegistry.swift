public import Logging
import NavHostKit
public import NavHostStorage
public import NavHostWire

/// The daemon's sessions by name, each an independent stack over the same features.
@MainActor
public final class SessionRegistry {
    // MARK: Private Properties

    var sessions = OpenSessions()
    /// The way back to the registry for its sessions' writers and watchers and its own tasks, which may outlive it
    /// (not a weak reference, which would put every retain of the registry on the runtime's slow path).
    let backlink = Backlink<SessionRegistry>()
    var listWatchers: [ObjectIdentifier: SessionListWatcher] = [:]
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
    var lastWriteFailure: [String: String] = [:]
    /// The sessions closed whose last write may not have landed yet, by name: their file may hold a failed write, or a
    /// write of theirs was under way as they closed, and may fail (``settleClosedSessions()``).
    var closedUnsettled: [String: UnsettledSession] = [:]
    /// The session the stop or a reload closed last under each name, while its file held no failed write and no write
    /// of it was under way: a call of it still under way may write after the close, and fail
    /// (``keepForTheSettle(_:afterACallersFailure:)``). Not held, only its backlink: once its callers are done, a
    /// failure of theirs has kept it in ``closedUnsettled`` already; the entries of sessions gone are dropped at each
    /// close.
    var closedKeepingRecords: [String: Backlink<NavigationSession>] = [:]
    /// The settle under way, which every caller of ``settleClosedSessions()`` waits for.
    var settling: Task<Void, Never>?
    /// The take-back under way (``TakeBackUnderWay``), which the catch-up event it records is saved or held by.
    var takeBackUnderWay: TakeBackUnderWay?
    /// The replays under way, by the name of the session each opened, each with a number of its own: a replay closes
    /// its session only while it is still the one it opened (a client may close it and open another of the name).
    var replaysUnderWay: [String: Int] = [:]
    /// The number of the next replay.
    var nextReplayNumber = 0

    // MARK: Public Properties

    /// Whether ``shutDown()`` ran: the daemon is stopping, and sessions are neither opened nor closed any more
    /// (``SessionsShutDown``).
    public private(set) var isShutDown = false

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
    /// Why each session the configuration declares that could not open did not, as the daemon last logged it (the
    /// daemon keeps it): a call naming such a session is told why (``sessionNotOpen(_:)``).
    public var configuredOpenFailures = SessionOpenFailures()

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
        }
        // What to do: wait for the plugin, or give the session a root that opens; a name the configuration declares
        // takes its root from the configuration alone (`--session NAME=ROUTE`, `sessions:`), not from OpenSession.
        let remedy: String
        if let entry = opened[name] {
            reason =
                "opened over the wire, but its root route \"\(entry.root)\" cannot be opened now"
                + (listedOpenFailures.reason(of: name).map { " (\($0))" } ?? "")
            remedy = "it opens once the route's plugin loads; CloseSession forgets it"
        } else if configuredNames.contains(name) {
            reason =
                "declared by the configuration, but its root route cannot be opened now"
                + (configuredOpenFailures.reason(of: name).map { " (\($0))" } ?? "")
            remedy =
                "it opens once the route's plugin loads; another root: navhostd --session \(name)=ROUTE, or sessions in "
                + "navhostd.conf"
        } else {
            return .sessionNotFound(name)
        }
        return NavigationError(
            .sessionNotFound,
            "session \"\(name)\" is \(reason): \(remedy)",
            parameters: ["session": .string(name), "reason": .string("\(reason); \(remedy)")]
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
