public import NavHostJSON

// The outputs of io.navhost.Plugins' methods, `Codable` in their wire form.

/// What `List` answers: every plugin found, loaded or not.
public struct PluginListReply: Sendable, Hashable, Codable {
    /// Every plugin found, loaded or not.
    public var plugins: [PluginInfo]

    /// Creates a reply, as a test double would.
    public init(plugins: [PluginInfo]) {
        self.plugins = plugins
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
