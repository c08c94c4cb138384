import NavHostKit

// Sessions opened and closed while the daemon runs: over the wire (durably, before the reply) and by configuration.

extension SessionRegistry {
    /// Opens a session a control client asked for, with ``SessionRegistry/defaultOptions`` under what it sets, and
    /// returns once it exists durably: its name is in the list of
    /// opened sessions (``OpenedSessionsFile``) and its first record is written, so a restart, crash or not, opens it
    /// again with its stack.
    ///
    /// Any state left on disk under the name (by a session closed before) is discarded: an opened session starts
    /// at its root.
    ///
    /// - Throws: ``NavigationError``: `InvalidSessionName`, `SessionExists`, what opening the root screen throws
    ///   (`RouteNotFound`, `InvalidRouteParameters`, `ViewModelFailed`), or `StorageFailed` — then nothing was
    ///   opened.
    @discardableResult
    public func openDurably(_ entry: OpenedSessionsFile.Entry) async throws -> NavigationSession {
        guard SessionConfiguration.isValidName(entry.name) else { throw NavigationError.invalidSessionName(entry.name) }
        guard (try? session(entry.name)) == nil else { throw NavigationError.sessionExists(entry.name) }
        discardSavedState(of: entry.name)
        let session = try open(entry.configuration, options: entry.options(over: defaultOptions))
        opened[entry.name] = entry
        do {
            try await saveOpenedList()
            try await commit(session)
        } catch {
            close(entry.name)
            opened[entry.name] = nil
            try? await saveOpenedList()
            throw error as? NavigationError ?? NavigationError.storageFailed("\(error)")
        }
        return session
    }

    /// Closes a session opened over the wire, and returns once it is durably gone: it is out of the list of opened
    /// sessions, so a restart does not bring it back. Its screens disappear, its watchers' calls end, its saved state
    /// is deleted.
    ///
    /// - Throws: ``NavigationError``: `SessionNotFound`, `SessionConfigured` (the configuration declares it: take it
    ///   out there), or `StorageFailed` — then it stays open.
    public func closeDurably(_ name: String) async throws {
        _ = try session(name)
        guard let entry = opened[name] else { throw NavigationError.sessionConfigured(name) }
        opened[name] = nil
        do {
            try await saveOpenedList()
        } catch {
            opened[name] = entry
            throw NavigationError.storageFailed("\(error)")
        }
        close(name)
        discardSavedState(of: name)
    }

    /// Opens the sessions the list of opened sessions holds, after the configured ones at start, with
    /// ``SessionRegistry/defaultOptions``. A session the configuration now declares under the same name is the
    /// configured one.
    public func reopenSessions() {
        guard let openedFile else { return }
        let entries = openedFile.load { movedTo in
            logger.error(
                "The list of opened sessions could not be trusted; moved it aside",
                metadata: ["navhost.file": "\(movedTo)"]
            )
        }
        for entry in entries where (try? session(entry.name)) == nil {
            do {
                try open(entry.configuration, options: entry.options(over: defaultOptions))
                opened[entry.name] = entry
                logger.info(
                    "Opened a session opened over the wire before the restart",
                    metadata: ["navhost.session": "\(entry.name)", "navhost.route": "\(entry.root)"]
                )
            } catch {
                opened[entry.name] = entry
                logger.error(
                    "Cannot open a session opened over the wire: its root route is not available",
                    metadata: [
                        "navhost.session": "\(entry.name)", "navhost.route": "\(entry.root)", "error": "\(error)",
                    ]
                )
            }
        }
    }

    /// Closes the session `name` now, whatever opened it: screens get `onDisappear`, watchers end, and the session
    /// list's watchers hear of it. Its saved state stays unless the caller removes it.
    public func close(_ name: String) {
        guard let session = removeSession(named: name) else { return }
        session.close()
        logger.info("Closed session", metadata: ["navhost.session": "\(name)"])
    }

    // MARK: Private

    private func saveOpenedList() async throws {
        try await openedFile?.save(opened.values.sorted { $0.name < $1.name })
    }

    private func discardSavedState(of name: String) {
        guard let persistence else { return }
        FileIO.remove(persistence.file(for: name).path)
        persistence.forget(name)
    }
}
