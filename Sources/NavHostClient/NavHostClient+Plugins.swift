// One method per io.navhost.Plugins method.

// MARK: - Plugins

extension NavHostClient {
    /// Every plugin the daemon found, loaded or quarantined (`io.navhost.Plugins.List`).
    ///
    /// ```swift
    /// for plugin in try await client.plugins() where plugin.state == .quarantined {
    ///     print(plugin.name, plugin.quarantine?.message ?? "")
    /// }
    /// ```
    public func plugins() async throws(NavHostClientError) -> [PluginInfo] {
        try await call("\(Self.pluginsInterface).List", [:], as: PluginList.self).plugins
    }

    private struct PluginList: Decodable { var plugins: [PluginInfo] }
}
