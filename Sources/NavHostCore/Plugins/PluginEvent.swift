/// One change to the plugins, as a watcher of the plugin control sees it.
///
/// The screens a change rebuilds or pops are not part of it: they reach each session's watchers as ordinary
/// revisions of that session.
public struct PluginEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        /// A plugin that was not loaded now serves its routes.
        case loaded
        /// A new build replaced a loaded plugin.
        case reloaded
        /// A plugin was unloaded: its routes are gone.
        case removed
        /// A plugin, or a new build of a loaded one, was refused; a loaded one keeps serving.
        case failed
    }

    // MARK: Public Properties

    /// What happened.
    public var kind: Kind
    /// The plugin's name (its folder's name when its manifest does not read).
    public var name: String
    /// The version now serving (`loaded`, `reloaded`), removed (`removed`) or refused (`failed`, when it reads).
    public var version: SemanticVersion?
    /// The version a reload replaced.
    public var previousVersion: SemanticVersion?
    /// The library now serving (`loaded`, `reloaded`).
    public var path: String?
    /// Why it was refused (`failed`).
    public var reason: QuarantineReason?

    // MARK: Initialization

    /// Creates an event from its parts.
    public init(
        kind: Kind,
        name: String,
        version: SemanticVersion? = nil,
        previousVersion: SemanticVersion? = nil,
        path: String? = nil,
        reason: QuarantineReason? = nil
    ) {
        self.kind = kind
        self.name = name
        self.version = version
        self.previousVersion = previousVersion
        self.path = path
        self.reason = reason
    }

    /// `loaded` or `failed`, from the status a load recorded.
    static func outcome(of status: PluginStatus) -> PluginEvent {
        PluginEvent(
            kind: status.isLoaded ? .loaded : .failed,
            name: status.name,
            version: status.version,
            path: status.isLoaded ? status.libraryPath : nil,
            reason: status.quarantineReason
        )
    }
}

/// A live view of the plugins: every plugin's status first, then one ``PluginEvent`` per change (see ``Watcher``).
public typealias PluginWatcher = Watcher<[PluginStatus], PluginEvent>
