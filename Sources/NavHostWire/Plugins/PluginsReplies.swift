// The outputs of io.navhost.Plugins' methods, `Codable` in their wire form.

/// What `List` answers: every plugin found, loaded or not.
public struct PluginListReply: Sendable, Hashable, Codable {
    public var plugins: [PluginInfo]

    public init(plugins: [PluginInfo]) {
        self.plugins = plugins
    }
}

/// What `Load` and `Reload` answer: the plugin as it now is.
public struct PluginReply: Sendable, Hashable, Codable {
    public var plugin: PluginInfo

    public init(plugin: PluginInfo) {
        self.plugin = plugin
    }
}
