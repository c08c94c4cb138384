public import NavHostJSON

// The outputs of io.navhost.Plugins' methods, `Codable` in their wire form.

/// What `List` answers: every plugin found, loaded or not, and the folder the daemon loads plugins from.
public struct PluginListReply: Sendable, Hashable, Codable {
    /// Every plugin found, loaded or not.
    public var plugins: [PluginInfo]
    /// The plugins folder: where the daemon loads plugins from at start, at SIGHUP and, when
    /// ``watchesPluginsFolder``, as its folders change. `nil` from an older daemon, which does not say, and in
    /// `Watch`'s first reply.
    public var pluginsFolder: String?
    /// Whether the daemon follows ``pluginsFolder`` as it changes (`watch-plugins`): a build copied there is loaded by
    /// itself. `false`: only at start, at SIGHUP and by `Load`.
    public var watchesPluginsFolder: Bool?

    /// Creates a reply, as a test double would.
    public init(plugins: [PluginInfo], pluginsFolder: String? = nil, watchesPluginsFolder: Bool? = nil) {
        self.plugins = plugins
        self.pluginsFolder = pluginsFolder
        self.watchesPluginsFolder = watchesPluginsFolder
    }
}

/// What `Load` and `Reload` answer: the plugin as it now is.
public struct PluginReply: Sendable, Hashable, Codable {
    /// The plugin as it now is.
    public var plugin: PluginInfo

    /// Creates a reply, as a test double would.
    public init(plugin: PluginInfo) {
        self.plugin = plugin
    }
}

/// One reply of `Watch`: every plugin, or one change. `coalesced` marks a list that stands in for changes the client
/// was too slow to take.
public enum PluginWatchReply: Sendable, Hashable {
    case plugins([PluginInfo], coalesced: Bool)
    case event(PluginEvent)

    /// The reply's parameters.
    public func jsonObject() throws -> JSONObject {
        switch self {
        case .plugins(let plugins, let coalesced):
            var members = try JSONValueEncoder().encode(PluginListReply(plugins: plugins)).objectValue ?? [:]
            if coalesced { members["coalesced"] = true }
            return members
        case .event(let event):
            return ["event": try JSONValueEncoder().encode(event)]
        }
    }
}
