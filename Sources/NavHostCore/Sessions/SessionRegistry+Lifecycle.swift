import NavHostKit
public import NavHostStorage
public import NavHostWire

// Sessions opened and closed while the daemon runs: over the wire (durably, before the reply) and by configuration.

extension SessionRegistry {
    /// Opens a session a control client asked for, with ``SessionRegistry/defaultOptions`` under what it sets, and
    /// returns once it exists durably: its name is in the list of opened sessions (``OpenedSessionsFile``) and its
    /// first record is written, so a restart, crash or not, opens it again with its stack.
    ///
    /// It starts at its root, whatever record an earlier session of the same name left, and its revisions start
    /// above that session's, so that a client resuming a watch of the old one gets a snapshot, not stale events.
    /// Calls for one name run one after the other.
    ///
    /// - Throws: ``NavigationError``: `InvalidSessionName`, `SessionConfigured` (the configuration declares the
    ///   name), `SessionExists`, what opening the root screen throws (`RouteNotFound`, `InvalidRouteParameters`,
    ///   `ViewModelFailed`), or `StorageFailed` — then nothing was opened; ``SessionsShutDown`` once the daemon is
    ///   stopping. When the first record cannot be written, nor the list without the session (and that write left the
    ///   list as it was), the list on disk names it, and a restart opens it: so does this call, and returns it as a
    ///   restart opens it (from the record of the name on disk, or at its root).
    ///
    /// - Parameter replaying: For a session that replays a recording, the random numbers its features get
    ///   (``SessionOptions/replaying``).
    @discardableResult
    public func openDurably(
        _ entry: OpenedSessionsFile.Entry,
        replaying: [UInt64]? = nil
    ) async throws -> NavigationSession {
        try await openDurablyAnswering(entry, replaying: replaying).session
    }

    /// ``openDurably(_:replaying:)``, with the session's snapshot as its first record, the one written, holds it: what
    /// the call is answered with. Read in the stretch that takes the record to write, not after the write, during which
    /// another client (one that saw it in `WatchSessions`) may change the session with changes not on disk yet.
    package func openDurablyAnswering(
        _ entry: OpenedSessionsFile.Entry,
        replaying: [UInt64]? = nil
    ) async throws -> (session: NavigationSession, snapshot: SessionSnapshot) {
        guard SessionConfiguration.isValidName(entry.name) else { throw NavigationError.invalidSessionName(entry.name) }
        guard !configuredNames.contains(entry.name) else { throw NavigationError.sessionConfigured(entry.name) }
        return try await oneAtATime(for: entry.name) {
            () async throws -> (session: NavigationSession, snapshot: SessionSnapshot) in
            // Checked in the stretch that looks for a session of the name: once the sessions are closed for the stop,
            // an open one is no longer found, and its record would be replaced by a new root.
            guard !isShutDown else { throw SessionsShutDown() }
            try checkStillFree(entry.name)
            if let openedListProblem { throw NavigationError.storageFailed(openedListProblem) }
            // The writes of an earlier session of this name finish first: none of them may land after this one's.
            await persistence?.waitForQueuedWrites()
            guard !isShutDown else { throw SessionsShutDown() }
            // Again after the wait: a reload (SIGHUP) may have declared the name meanwhile, and opened the
            // configuration's session under it.
            try checkStillFree(entry.name)
            persistence?.forget(entry.name)
            var options = entry.options(over: defaultOptions)
            options.replaying = replaying
            guard catalog.owner(ofRoute: entry.root) != nil else { throw NavigationError.routeNotFound(entry.root) }
            // Listed durably before the session exists: a client that reaches it (by its name, or from Sessions or
            // WatchSessions) before this call is answered is answered for changes a restart keeps. A session a crash
            // cuts short here comes back at its root, as a call that was never answered may.
            try await changingOpenedList { () async throws in
                // Again in the turn: an unload of the root's plugin may have held it (``whileNoSessionIsListed(_:)``).
                guard catalog.owner(ofRoute: entry.root) != nil else { throw NavigationError.routeNotFound(entry.root) }
                opened[entry.name] = entry
                do {
                    try await saveOpenedList()
                } catch {
                    opened[entry.name] = nil
                    throw error as? NavigationError ?? NavigationError.storageFailed("\(error)")
                }
            }
            // And after the list's write: a reload that declared the name during it took the name (it is no longer
            // listed) and opened the configuration's session, which `open` would hand back as this call's.
            do throws(NavigationError) {
                try checkStillFree(entry.name)
            } catch {
                await changingOpenedList {
                    if opened[entry.name] == entry {
                        opened[entry.name] = nil
                        try? await saveOpenedList()
                    }
                }
                throw error
            }
            let session: NavigationSession
            let snapshot: SessionSnapshot
            do {
                session = try open(entry.configuration, options: options, fresh: freshStart(of: entry.name))
                snapshot = session.snapshot
                try await commit(session)
            } catch {
                // Unless a reload declared the name meanwhile: the session is the configuration's now. Closed as
                // `CloseSession` closes one: should its first record have reached the disk, the record is emptied, and
                // a session the configuration declares under the name later starts at its own root.
                if !configuredNames.contains(entry.name) {
                    (try? self.session(entry.name))?.isClosedDurably = true
                    close(entry.name)
                    // While the name is still this call's: a session the configuration declares under it meanwhile
                    // opens once it is free, and reads the record as emptied, not as the refused one's. The emptied
                    // write has no caller of its own: it is written again should it fail, and logged if it never lands.
                    await settleClosedSessions()
                }
                let reopened = await changingOpenedList { () async -> NavigationSession? in
                    opened[entry.name] = nil
                    do {
                        try await saveOpenedList()
                        return nil
                    } catch {
                        return reopenStillListed(entry, options: options, listError: error)
                    }
                }
                // The list on disk names the session, which a restart opens: so does this call, which must not
                // answer `StorageFailed` for a session a restart brings back.
                if let reopened { return (reopened, reopened.snapshot) }
                throw error as? NavigationError ?? NavigationError.storageFailed("\(error)")
            }
            logger.info(
                replaying == nil ? "Opened session" : "Opened session to replay a recording",
                metadata: ["navhost.session": "\(entry.name)", "navhost.route": "\(entry.root)"]
            )
            return (session, snapshot)
        }
    }

    /// Closes a session opened over the wire, and returns once it is durably gone: it is out of the list of opened
    /// sessions, so a restart does not bring it back, and its saved record holds no stack any more, so a session
    /// the configuration declares under the name later starts at its own root. Its screens disappear and its
    /// watchers' calls end. The record keeps its revisions and screen numbers, which a session opened later under the
    /// name continues. An entry of the list whose session could not be opened (its route is gone) is taken out the
    /// same way.
    ///
    /// - Throws: ``NavigationError``: `SessionNotFound`, `SessionConfigured` (the configuration declares it: take it
    ///   out there), or `StorageFailed` — then it stays open; or, when the list was written but the record could not
    ///   be emptied, it is closed and the error says that its stack is still on disk; or, when the list without it
    ///   was renamed into place but could not be made durable, nor the list with it put back, it is closed as a
    ///   restart finds it, and the error says so; ``SessionsShutDown`` once the daemon is stopping.
    public func closeDurably(_ name: String) async throws {
        try await closeDurably(name, evenStopping: false)
    }

    /// ``closeDurably(_:)``; with `evenStopping`, also once the daemon is stopping: a replay that the stop cuts short
    /// takes out the session it opened, as it was never answered for it.
    func closeDurably(_ name: String, evenStopping: Bool) async throws {
        // What the session held may go now (a replay's session too); not during the stop, which closes everything.
        defer { if !isShutDown { onSessionClosed?(name) } }
        try await oneAtATime(for: name) { () async throws in
            guard evenStopping || !isShutDown else { throw SessionsShutDown() }
            // The failure of a list without the session that stayed in place, not durably: the session closes, as a
            // restart closes it, and the call says so.
            let listNotDurable = try await changingOpenedList { () async throws -> FileAccessError? in
                guard let entry = opened[name] else {
                    if configuredNames.contains(name) || (try? session(name)) != nil {
                        throw NavigationError.sessionConfigured(name)
                    }
                    throw NavigationError.sessionNotFound(name)
                }
                if let openedListProblem { throw NavigationError.storageFailed(openedListProblem) }
                opened[name] = nil
                do {
                    try await saveOpenedList()
                } catch {
                    // A reload (SIGHUP) that declared the name during the write took it: the list without it is what
                    // the configuration wants; put back, the entry was written again, and listed a session the
                    // configuration declares. The reload found no entry to take out and wrote no list: the list
                    // without it is written again here, else the one on disk still named the session, and a restart
                    // after a reload that drops the name opened it. The call answers `SessionConfigured` at once: a
                    // reload that drops the name during this write closes the session, and had the call gone on it
                    // would answer it closed while the list on disk may still name it.
                    guard !configuredNames.contains(name) else {
                        do {
                            try await saveOpenedList()
                        } catch {
                            logger.error("Cannot write the list of opened sessions", metadata: ["error": "\(error)"])
                        }
                        throw NavigationError.sessionConfigured(name)
                    }
                    opened[name] = entry
                    guard let unplaced = await putBackListed(entry, after: error) else {
                        // It stays open, and a replay of it still owns it.
                        throw NavigationError.storageFailed("\(error)")
                    }
                    opened[name] = nil
                    replaysUnderWay[name] = nil
                    return unplaced
                }
                // A replay of this session no longer owns the name: it closes nothing opened under it afterwards.
                replaysUnderWay[name] = nil
                return nil
            }
            // A reload (SIGHUP) that declared the name during the write made the session the configuration's: it
            // stays, as if the reload had come first (the list without it is what the configuration wants too).
            guard !configuredNames.contains(name) else { throw NavigationError.sessionConfigured(name) }
            // The open session's record, or, for an entry whose session could not be opened, the one on disk.
            let closing = try? session(name)
            let last = closing?.record ?? savedRecord(of: name)
            // What its calls still under way change is written nowhere from now on (``commit(_:takeBacks:)``).
            closing?.isClosedDurably = true
            close(name)
            defer {
                if let listNotDurable {
                    logger.error(
                        "Closed a session whose list without it could not be made durable, as a restart closes it",
                        metadata: ["navhost.session": "\(name)", "error": "\(listNotDurable)"]
                    )
                }
            }
            guard let persistence, let last else {
                if let listNotDurable { throw Self.closedWithoutDurableList(listNotDurable) }
                return
            }
            // A failed write the closed session had not taken back yet refuses no more: the emptied record holds
            // nothing of it.
            persistence.takenBack(name)
            do {
                try await persistence.save(Self.emptied(last))
                if let listNotDurable { throw Self.closedWithoutDurableList(listNotDurable) }
            } catch let error as NavigationError {
                throw error
            } catch {
                // Its failure refuses nothing more either: the session is closed, and a later one of the name writes
                // its own record.
                persistence.takenBack(name)
                logger.error(
                    "Closed a session, but cannot empty its saved record",
                    metadata: ["navhost.session": "\(name)", "error": "\(error)"]
                )
                throw NavigationError.storageFailed(
                    "the session is closed, but its saved stack could not be removed (\(error)); a session the "
                        + "configuration declares under this name would start from it"
                )
            }
        }
    }

    /// Reads the list of opened sessions (at start). A list that cannot be read is left alone, and opening and
    /// closing sessions over the wire is refused until a restart can read it.
    public func loadOpenedList() {
        guard let openedFile else { return }
        switch openedFile.load() {
        case .success(let entries):
            for entry in entries { opened[entry.name] = entry }
        case .failure(let problem):
            openedListProblem = "the list of opened sessions cannot be read (\(problem.detail))"
            logger.error(
                "Cannot read the list of opened sessions; opening and closing sessions over the wire is refused",
                metadata: ["navhost.file": "\(openedFile.path)", "error": "\(problem.detail)"]
            )
        }
    }

    /// Opens the listed sessions that are not open, with ``SessionRegistry/defaultOptions``: at start after the
    /// configured ones, and again on a reload and when a plugin loads (it may bring the root route back). A failure
    /// is logged once per reason (``listedOpenFailures``). A listed name the configuration now
    /// declares becomes the configuration's (``declareConfiguredSessions(_:)``).
    public func openListedSessions() {
        guard !isShutDown else { return }
        // A name an OpenSession or CloseSession is busy with is that call's: it opens the session itself, or is
        // closing it. One whose session waits for an earlier one's writes to land opens once they have.
        for entry in opened.values.sorted(by: { $0.name < $1.name })
        where (try? session(entry.name)) == nil && !isBusy(entry.name) {
            do {
                let options = entry.options(over: defaultOptions)
                guard try openOnceEarlierWritesLand(entry.configuration, options: options) != nil else { continue }
                listedOpenFailures.forget(entry.name)
                logger.info(
                    "Opened a session opened over the wire before",
                    metadata: ["navhost.session": "\(entry.name)", "navhost.route": "\(entry.root)"]
                )
            } catch {
                guard listedOpenFailures.isNew(entry.name, because: "\(error)") else { continue }
                logger.error(
                    "Cannot open a session opened over the wire at its root route (CloseSession forgets it)",
                    metadata: [
                        "navhost.session": "\(entry.name)", "navhost.route": "\(entry.root)", "error": "\(error)",
                    ]
                )
            }
        }
    }

    /// Records which sessions the configuration declares. A name opened over the wire that the configuration now
    /// declares is the configuration's from now on: it leaves the list of opened sessions, written in a task of its
    /// own that ``adoptedSessionsWritten()`` waits for. A failure is logged, and the list is written again at the next
    /// declaration (a reload), whatever it takes over.
    ///
    /// A CloseSession of a name it declares, whose list is being written, took the name out already: there is nothing
    /// to take over, but what the list on disk holds depends on that write (and on its retry), so
    /// ``adoptedSessionsWritten()`` waits for it too.
    public func declareConfiguredSessions(_ names: Set<String>) {
        configuredNames = names
        let adopted = Set(opened.keys).intersection(names)
        for name in adopted { opened[name] = nil }
        if !adopted.isEmpty {
            logger.notice(
                "Sessions opened over the wire are now declared by the configuration",
                metadata: ["navhost.sessions": "\(adopted.sorted().joined(separator: " "))"]
            )
        }
        let listChangeUnderWay = names.contains { busyNames[$0] != nil }
        guard !adopted.isEmpty || adoptedListUnwritten || listChangeUnderWay else { return }
        let writes = !adopted.isEmpty || adoptedListUnwritten
        let earlier = adoptionWrite
        adoptionWrite = Task {
            await earlier?.value
            // Its turn comes after the list changes under way; one that only waits for them writes nothing.
            await changingOpenedList {
                guard writes || adoptedListUnwritten else { return }
                do {
                    try await saveOpenedList()
                    adoptedListUnwritten = false
                } catch {
                    adoptedListUnwritten = true
                    logger.error(
                        "Cannot write the list of opened sessions after a taking over (tried again at the next reload)",
                        metadata: ["navhost.sessions": "\(names.sorted().joined(separator: " "))", "error": "\(error)"]
                    )
                }
            }
        }
    }

    /// Waits until the list of opened sessions without the names the configuration took over
    /// (``declareConfiguredSessions(_:)``), and any change of the list under way for a name it declares, has been
    /// written, or has failed to be: the start and a reload announce `READY=1` after it. Before, the write ran behind
    /// `READY=1`, and a kill -9 right after a reload (or a start) that took a session over, with the name then taken
    /// out of the configuration, brought the session back at the restart as opened over the wire, with its stack,
    /// where the configuration had made it its own (`DaemonDurabilityTests.configurationsTakeOverSurvivesKill`).
    public func adoptedSessionsWritten() async {
        await adoptionWrite?.value
    }

    /// Whether an OpenSession, a CloseSession or a replay's opening or closing of `name` is under way: the session of
    /// the name is that call's to open or close, and the configuration's is opened when it is done. Or whether a
    /// session of the name waits to open until an earlier one's writes land (``openOnceEarlierWritesLand(_:options:)``).
    public func isBusy(_ name: String) -> Bool {
        busyNames[name] != nil || namesAwaitingEarlierWrites.contains(name)
    }

    /// Closes the session `name` now, whatever opened it: screens get `onDisappear`, watchers end, and the session
    /// list's watchers hear of it. Its saved state stays.
    public func close(_ name: String) {
        guard closeSession(named: name) != nil else { return }
        logger.info("Closed session", metadata: ["navhost.session": "\(name)"])
    }

    // MARK: Private

    /// Throws `SessionConfigured` when the configuration declares `name`, `SessionExists` when a session of the name
    /// is open: what a call that opens a session over the wire checks again after each wait.
    private func checkStillFree(_ name: String) throws(NavigationError) {
        guard !configuredNames.contains(name) else { throw NavigationError.sessionConfigured(name) }
        guard (try? session(name)) == nil else { throw NavigationError.sessionExists(name) }
    }

    private func saveOpenedList() async throws {
        try await openedFile?.save(opened.values.sorted { $0.name < $1.name })
    }

    /// Runs `body`, a change of ``opened`` and its write, once no other such change is under way, and keeps the others
    /// waiting until it is done, each handed the turn in the order it came. A list is written only once the changes
    /// before it are decided: taken while an `OpenSession`'s write was under way, it held that session, and written
    /// after that write failed (the disk came back, or the list was shorter), it listed a session answered
    /// `StorageFailed`, which a restart then opened.
    private func changingOpenedList<T>(_ body: () async throws -> T) async rethrows -> T {
        try await openedListChanges.take(body)
    }

    /// Runs `body` while no session is being listed as opened over the wire: an `OpenSession` (or a replay) writing
    /// the list finishes that first, and one that comes meanwhile waits, then finds the routes as `body` left them.
    ///
    /// A plugin's unload runs so (`PluginControl.unload`): it is refused when a session starts at one of its routes,
    /// and it writes that the plugin is unloaded before it unloads it. A session opened at one of its routes while
    /// that write was under way made the unload refused after the write, with the write on disk until it was taken
    /// back: a kill -9 between lost that session, acknowledged, at the restart (a durability review: 4 of 10 rounds).
    package func whileNoSessionIsListed<Result, Failure: Error>(
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await openedListChanges.take(body)
    }

    /// Opens again, as a restart would, the session `entry` names whose first state could not be written and whose
    /// entry could not be taken out of the list of opened sessions either (`listError`), when that write failed before
    /// it replaced the list: the list on disk names the session, so a restart opens it — from the record of the name
    /// on disk, or at its root — and an `OpenSession` answered `StorageFailed` would come back. `nil`, with the entry
    /// out of ``opened``, when the list may have been replaced (its folder's `fsync` failed after the rename: a
    /// restart may open it or not), or when the session cannot open (its root's plugin is gone, a reload declared the
    /// name, the daemon is stopping).
    private func reopenStillListed(
        _ entry: OpenedSessionsFile.Entry,
        options: SessionOptions,
        listError: any Error
    ) -> NavigationSession? {
        guard let notWritten = listError as? FileAccessError, !notWritten.mayHaveReplaced,
            !configuredNames.contains(entry.name), !isShutDown, (try? session(entry.name)) == nil,
            let session = try? open(entry.configuration, options: options, fresh: nil)
        else {
            logger.error(
                "Cannot take a session that failed to open out of the list of opened sessions",
                metadata: ["navhost.session": "\(entry.name)", "error": "\(listError)"]
            )
            return nil
        }
        opened[entry.name] = entry
        logger.error(
            "Kept a session whose first state could not be written open, as a restart opens it: the list still names it",
            metadata: ["navhost.session": "\(entry.name)", "error": "\(listError)"]
        )
        return session
    }

    /// Called when the list without the session `entry` names could not be written (`error`), a `CloseSession`'s, to
    /// make the list a restart reads the one with it, which the call's `StorageFailed` ("it stays open") says.
    ///
    /// A list renamed into place whose folder's `fsync` failed (``FileAccessError/mayHaveReplaced``) may be what a
    /// restart reads: the list with the session is written again over it. When that write fails before it replaced
    /// the list, the list without the session stays in place, and a restart does not open it: that failure is
    /// returned, and the call closes the session as a restart does, and says so. `nil` when the list in place names
    /// the session: the first write left the list as it was, or the second replaced it (durably, or renamed with its
    /// folder's `fsync` failed again: a restart reads it unless the system crashes).
    ///
    /// The mirror of ``reopenStillListed(_:options:listError:)``, an `OpenSession`'s: the list on disk decides.
    private func putBackListed(_ entry: OpenedSessionsFile.Entry, after error: any Error) async -> FileAccessError? {
        guard let uncertain = error as? FileAccessError, uncertain.mayHaveReplaced else { return nil }
        do {
            try await saveOpenedList()
            return nil
        } catch {
            return Self.leavesTheListInPlace(error) ? uncertain : nil
        }
    }

    /// Whether `failure`, a write of the list of opened sessions that failed, left the list on disk as it was: every
    /// failure but a ``FileAccessError`` that may have replaced it (renamed into place, then its folder's `fsync`
    /// failed), another error than a `FileAccessError` too: it says nothing of having replaced the list.
    static func leavesTheListInPlace(_ failure: any Error) -> Bool {
        guard let failure = failure as? FileAccessError else { return true }
        return !failure.mayHaveReplaced
    }

    /// The `StorageFailed` of a `CloseSession` that closed its session although the list without it could not be
    /// made durable (`error`): the list in place is without it, and a restart does not open it; a crash of the system
    /// may.
    private static func closedWithoutDurableList(_ error: FileAccessError) -> NavigationError {
        NavigationError.storageFailed(
            "the session is closed, as a restart finds it, but the list of opened sessions without it could not be "
                + "made durable (\(error)); a crash of the system may bring it back"
        )
    }

    /// A closed session's last record without its stack: a later session of the name that restores it starts at its
    /// own root (`NavigationSession(restoring:)`), above these revisions and screen numbers. Its revision is past the
    /// reservation, above any record of the closed session still on its way to the writer.
    static func emptied(_ record: SessionRecord) -> SessionRecord {
        SessionRecord(
            session: record.session,
            revision: max(record.reservedRevision, record.revision) + 1,
            nextScreenNumber: record.nextScreenNumber,
            stack: []
        )
    }

    /// The record of `name` on disk, if one loads.
    private func savedRecord(of name: String) -> SessionRecord? {
        guard let persistence, case .record(let record)? = try? persistence.file(for: name).load() else { return nil }
        return record
    }

    /// Where a new session of `name` starts: its revisions past the reservation of the record an earlier one left,
    /// its screen numbers past that one's.
    private func freshStart(of name: String) -> FreshStart {
        guard let record = savedRecord(of: name) else { return FreshStart(revision: 0, screenNumber: 1) }
        return FreshStart(
            revision: max(record.reservedRevision, record.revision) + 1,
            screenNumber: record.nextScreenNumber
        )
    }

    /// Runs `body` once no other OpenSession or CloseSession of `name` is under way, and keeps the others waiting
    /// until it is done; each waiting call is handed the turn in the order it came.
    private func oneAtATime<T>(for name: String, _ body: () async throws -> T) async throws -> T {
        let turns = busyNames[name] ?? Turns()
        busyNames[name] = turns
        defer {
            if !turns.isTaken {
                busyNames[name] = nil
                // A reload that declared the name meanwhile left its session to open (`DaemonCore.openSessions`).
                if configuredNames.contains(name), (try? session(name)) == nil, !isShutDown {
                    openConfiguredSessions?()
                }
            }
        }
        return try await turns.take(body)
    }
}
