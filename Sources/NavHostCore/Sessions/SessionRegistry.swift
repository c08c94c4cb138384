public import Logging
public import NavHostKit

/// The daemon's sessions by name, each an independent stack over the same features.
@MainActor
public final class SessionRegistry {
    // MARK: Private Properties

    private var sessions: [String: NavigationSession] = [:]
    private let logger: Logger
    private let persistence: SessionPersistence?

    // MARK: Public Properties

    /// The features every session builds screens from.
    public let catalog: FeatureCatalog

    /// The sessions' names, sorted.
    public var names: [String] { sessions.keys.sorted() }

    /// Every session, sorted by name.
    public var all: [NavigationSession] { names.compactMap { sessions[$0] } }

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
    /// change is saved.
    public init(catalog: FeatureCatalog, persistence: SessionPersistence? = nil, logger: Logger) {
        self.catalog = catalog
        self.persistence = persistence
        self.logger = logger
    }

    // MARK: Public Functions

    /// Opens a session rooted at `configuration.root`, replacing none: a name can be opened once.
    @discardableResult
    public func open(
        _ configuration: SessionConfiguration,
        options: SessionOptions = SessionOptions()
    ) throws(NavigationError) -> NavigationSession {
        if let existing = sessions[configuration.name] { return existing }
        let session: NavigationSession
        switch loadRecord(of: configuration.name) {
        case .record(let record):
            session = try NavigationSession(
                restoring: record,
                configuration: configuration,
                catalog: catalog,
                options: options,
                logger: logger
            )
            restoreNotes[configuration.name] = .restored(dropped: session.droppedOnRestore)
            if session.droppedOnRestore.isEmpty { persistence?.assumeDurable(record) }
        case let loaded:
            session = try NavigationSession(
                configuration: configuration,
                catalog: catalog,
                options: options,
                logger: logger
            )
            if case .discarded(let reason, let movedTo) = loaded {
                restoreNotes[configuration.name] = .discarded(reason: reason, movedTo: movedTo)
            } else {
                restoreNotes[configuration.name] = .fresh
            }
        }
        if let persistence {
            session.observeChanges { session, _ in persistence.submit(session.record) }
            persistence.submit(session.record)
        }
        sessions[configuration.name] = session
        return session
    }

    /// Returns once the session's current state is durable: call it before acknowledging a change.
    ///
    /// - Throws: The write's failure; the change must then not be acknowledged.
    public func commit(_ session: NavigationSession) async throws {
        try await persistence?.save(session.record)
    }

    /// The session called `name`, or the default session when `name` is `nil`.
    public func session(_ name: String? = nil) throws(NavigationError) -> NavigationSession {
        let name = name ?? SessionConfiguration.defaultName
        guard let session = sessions[name] else { throw .sessionNotFound(name) }
        return session
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

    /// Closes every session: screens get `onDisappear`, watchers end.
    public func closeAll() {
        for session in sessions.values { session.close() }
        sessions.removeAll()
    }
}
