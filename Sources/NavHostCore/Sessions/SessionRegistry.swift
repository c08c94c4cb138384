public import Logging
public import NavHostKit

/// The daemon's sessions by name, each an independent stack over the same features.
@MainActor
public final class SessionRegistry {
    // MARK: Private Properties

    private var sessions: [String: NavigationSession] = [:]
    private let logger: Logger

    // MARK: Public Properties

    /// The features every session builds screens from.
    public let catalog: FeatureCatalog

    /// The sessions' names, sorted.
    public var names: [String] { sessions.keys.sorted() }

    /// Every session, sorted by name.
    public var all: [NavigationSession] { names.compactMap { sessions[$0] } }

    // MARK: Initialization

    /// Creates an empty registry over `catalog`.
    public init(catalog: FeatureCatalog, logger: Logger) {
        self.catalog = catalog
        self.logger = logger
    }

    // MARK: Public Functions

    /// Opens a session rooted at `configuration.root`, replacing none: a name can be opened once.
    @discardableResult
    public func open(
        _ configuration: SessionConfiguration,
        eventHistory: Int = 1024,
        watcherLimit: Int = 256
    ) throws(NavigationError) -> NavigationSession {
        if let existing = sessions[configuration.name] { return existing }
        let session = try NavigationSession(
            configuration: configuration,
            catalog: catalog,
            eventHistory: eventHistory,
            watcherLimit: watcherLimit,
            logger: logger
        )
        sessions[configuration.name] = session
        return session
    }

    /// The session called `name`, or the default session when `name` is `nil`.
    public func session(_ name: String? = nil) throws(NavigationError) -> NavigationSession {
        let name = name ?? SessionConfiguration.defaultName
        guard let session = sessions[name] else { throw .sessionNotFound(name) }
        return session
    }

    /// Closes every session: screens get `onDisappear`, watchers end.
    public func closeAll() {
        for session in sessions.values { session.close() }
        sessions.removeAll()
    }
}
