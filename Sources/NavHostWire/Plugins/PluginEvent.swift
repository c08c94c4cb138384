/// One change to the daemon's plugins, as `io.navhost.Plugins.Watch` reports it.
public struct PluginEvent: Sendable, Hashable, Codable {
    /// What happened. New kinds may be added: compare with the constants, and show ``rawValue`` for one you do not
    /// know.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The kind's wire name.
        public var rawValue: String

        /// A kind by its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A new plugin serves: ``PluginEvent/version`` and ``PluginEvent/path`` say which build, from where.
        public static let loaded = Kind(rawValue: "loaded")
        /// A new build replaced a loaded plugin: ``PluginEvent/previousVersion`` → ``PluginEvent/version``.
        public static let reloaded = Kind(rawValue: "reloaded")
        /// The plugin was unloaded, or its folder went away.
        public static let removed = Kind(rawValue: "removed")
        /// A plugin, or a new build of a loaded one, was refused (``PluginEvent/reason``); a loaded one keeps
        /// serving.
        public static let failed = Kind(rawValue: "failed")
        /// A loaded plugin's folder changed and still holds the build that serves, whole (its library's checksum,
        /// its resources): nothing reloads. A folder that no longer holds it whole is `failed` instead.
        public static let checked = Kind(rawValue: "checked")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// What happened.
    public var kind: Kind
    /// The plugin's name, like `Products`.
    public var name: String
    /// The version now serving (or refused, for `failed`), when the event has one.
    public var version: String?
    /// The version a reload replaced.
    public var previousVersion: String?
    /// Where the library serving now was loaded from (a private copy, after a reload).
    public var path: String?
    /// The plugin's folder, the one its manifest is in: which of two folders holding a plugin of one name the event
    /// is about.
    public var folder: String?
    /// Why the plugin was refused, for `failed`.
    public var reason: PluginInfo.Quarantine?
    /// For `reloaded`: the screens of each session the new build could not bring back as they were; `nil` when it
    /// lost none.
    public var lost: [PluginInfo.LostScreens]?

    /// Creates an event, as a test double would.
    public init(
        kind: Kind,
        name: String,
        version: String? = nil,
        previousVersion: String? = nil,
        path: String? = nil,
        folder: String? = nil,
        reason: PluginInfo.Quarantine? = nil,
        lost: [PluginInfo.LostScreens]? = nil
    ) {
        self.kind = kind
        self.name = name
        self.version = version
        self.previousVersion = previousVersion
        self.path = path
        self.folder = folder
        self.reason = reason
        self.lost = lost
    }
}
