internal import NavHostJSON
public import NavHostWire

// One method per io.navhost.Plugins method (Watch is in NavHostPluginWatch.swift).

// MARK: - Reading

extension NavHostClient {
    /// Every plugin the daemon found, loaded or quarantined (`io.navhost.Plugins.List`).
    ///
    /// ```swift
    /// for plugin in try await client.plugins() where plugin.state == .quarantined {
    ///     print(plugin.name, plugin.quarantine?.message ?? "")
    /// }
    /// ```
    public func plugins() async throws(NavHostClientError) -> [PluginInfo] {
        try await pluginList().plugins
    }

    /// Every plugin the daemon found, and the folder it loads them from, and whether it follows that folder as it
    /// changes (`io.navhost.Plugins.List`; an older daemon does not say where).
    ///
    /// ```swift
    /// let list = try await client.pluginList()
    /// if list.watchesPluginsFolder == true, let folder = list.pluginsFolder { print("copy builds into \(folder)") }
    /// ```
    public func pluginList() async throws(NavHostClientError) -> PluginListReply {
        try await call(Self.pluginsMethod("List"), [:], as: PluginListReply.self)
    }
}

// MARK: - Changing

extension NavHostClient {
    /// Loads the plugin in the folder `path`: its manifest, library and resources (`Load`). Its dependencies must
    /// be loaded. Only a control user may (root, the daemon's own user, and the users and groups it was given).
    ///
    /// ```swift
    /// let plugin = try await client.loadPlugin(at: "/usr/lib/navhost/plugins/Products")
    /// print(plugin.name, plugin.version, plugin.routes)
    /// ```
    ///
    /// - Parameter path: The plugin's folder, as the daemon sees it: pass an absolute path, since the daemon does
    ///   not know the caller's working directory.
    /// - Returns: The plugin, loaded.
    /// - Throws: `PluginRefused` (its `code` is a quarantine code, like `checksumMismatch`, or `storageFailed`) and
    ///   `org.varlink.service.PermissionDenied` as ``NavHostClientError``.
    @discardableResult
    public func loadPlugin(at path: String) async throws(NavHostClientError) -> PluginInfo {
        try await call(Self.pluginsMethod("Load"), PathParameters(path: path).jsonObject, as: PluginReply.self).plugin
    }

    /// Replaces the loaded plugin `name` with the build now in its folder (`Reload`). Every session showing its
    /// screens rebuilds them in place; a refused build leaves the old version serving.
    ///
    /// ```swift
    /// let plugin = try await client.reloadPlugin(named: "Products")
    /// print(plugin.version, plugin.path)                 // the new build, from a fresh private copy
    /// ```
    ///
    /// - Returns: The plugin as it now serves.
    /// - Throws: `PluginNotFound`, `PluginRefused` and `org.varlink.service.PermissionDenied` as
    ///   ``NavHostClientError``.
    @discardableResult
    public func reloadPlugin(named name: String) async throws(NavHostClientError) -> PluginInfo {
        try await call(Self.pluginsMethod("Reload"), NameParameters(name: name).jsonObject, as: PluginReply.self).plugin
    }

    /// Takes the loaded plugin `name` out (`Unload`): its routes disappear, and every session pops its screens and
    /// those above them. It stays out across restarts until a ``loadPlugin(at:)`` of its folder.
    ///
    /// - Throws: `PluginNotFound`, `PluginRefused` (code `inUse`: another loaded plugin depends on it,
    ///   or it serves a session's configured root route; `storageFailed`: the daemon could not write it down) and
    ///   `org.varlink.service.PermissionDenied` as ``NavHostClientError``.
    public func unloadPlugin(named name: String) async throws(NavHostClientError) {
        _ = try await call(Self.pluginsMethod("Unload"), NameParameters(name: name).jsonObject, as: EmptyReply.self)
    }
}

// MARK: - Wire forms

extension NavHostClient {
    static func pluginsMethod(_ name: String) -> String { "\(pluginsInterface).\(name)" }
}
