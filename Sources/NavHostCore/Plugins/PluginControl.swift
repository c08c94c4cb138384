/// Loads, reloads and unloads plugins while sessions run, keeping every session's stack in step with the catalog.
///
/// ```swift
/// let control = PluginControl(registry: plugins, sessions: sessions)
/// let replacement = try control.reload("Products")   // every products.* screen rebuilt in place
/// try control.unload("Products")                     // every products.* screen, and what is above it, popped
/// ```
///
/// - A reload swaps the catalog entry, then each session rebuilds the screens of the old version's routes in place
///   (``NavigationSession/rebuildScreens(showing:)``): one `replaced` event per session that showed one.
/// - An unload removes the routes, then each session pops the plugin's lowest screen and everything above it
///   (``NavigationSession/removeScreens(showing:)``): one event per session. An unload that would take away a
///   session's configured root route is refused, so a session always has a root to restart at.
@MainActor
public final class PluginControl {
    // MARK: Public Properties

    /// The plugins.
    public let registry: PluginRegistry
    /// The sessions kept in step.
    public let sessions: SessionRegistry

    // MARK: Initialization

    /// Creates a control over `registry` and `sessions`, which must share one catalog.
    public init(registry: PluginRegistry, sessions: SessionRegistry) {
        self.registry = registry
        self.sessions = sessions
    }

    // MARK: Public Functions

    /// Loads the plugin in the folder `directory` (see ``PluginRegistry/load(pluginAt:libraryPath:)``).
    ///
    /// - Throws: ``PluginRegistry/ChangeError/refused(_:)`` with the reason it was quarantined.
    @discardableResult
    public func load(pluginAt directory: String) throws(PluginRegistry.ChangeError) -> PluginStatus {
        let status = registry.load(pluginAt: directory)
        if let reason = status.quarantineReason { throw .refused(reason) }
        return status
    }

    /// Replaces the plugin `name` with the build now in its folder, then rebuilds its screens in every session.
    ///
    /// - Throws: As ``PluginRegistry/reload(_:)``; the old version then keeps serving and no session changes.
    @discardableResult
    public func reload(_ name: String) throws(PluginRegistry.ChangeError) -> PluginRegistry.Replacement {
        let replacement = try registry.reload(name)
        for session in sessions.all { session.rebuildScreens(showing: replacement.oldRoutes) }
        return replacement
    }

    /// Unloads the plugin `name` and removes its screens, and those above them, from every session.
    ///
    /// - Throws: ``PluginRegistry/ChangeError/notLoaded(_:)``, or ``PluginRegistry/ChangeError/refused(_:)`` when a
    ///   loaded plugin depends on it or it serves a session's configured root route (`dependencyMissing`).
    public func unload(_ name: String) throws(PluginRegistry.ChangeError) {
        guard let routes = registry.catalog.entry(named: name)?.screens.map(\.route) else { throw .notLoaded(name) }
        if let session = sessions.all.first(where: { routes.contains($0.configuredRoot.id) }) {
            throw .refused(
                QuarantineReason(
                    .dependencyMissing,
                    "session \(session.name) starts at \(session.configuredRoot.id), which \(name) serves"
                )
            )
        }
        let removed = try registry.unload(name)
        for session in sessions.all { session.removeScreens(showing: removed) }
    }

    /// Brings the loaded plugins in step with `directory`, as SIGHUP does: loads new plugins, reloads those whose
    /// manifest's SHA-256 changed, unloads those whose folder is gone. Failures are logged and kept in the
    /// registry's statuses; nothing throws.
    public func rescan(_ directory: String) {
        let onDisk = registry.scan(directory)
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        for loaded in registry.loadedPlugins where loaded.directory.hasPrefix(prefix) {
            guard let found = onDisk.first(where: { $0.directory == loaded.directory }) else {
                try? unload(loaded.name)
                continue
            }
            if let manifest = found.manifest, manifest.name == loaded.name, manifest.sha256 != loaded.manifest?.sha256 {
                _ = try? reload(loaded.name)
            }
        }
        registry.loadAll(from: directory)
    }
}
