public import NavHostWire

// MARK: - Starting a plugin watch

extension NavHostClient {
    /// Follows the plugins (`io.navhost.Plugins.Watch`): every plugin first, as ``plugins()`` lists them, then one
    /// event per change (loaded, reloaded, removed, failed, checked), as they happen.
    ///
    /// ```swift
    /// for try await update in try await client.watchPlugins() {
    ///     switch update {
    ///     case .plugins(let plugins, _): print(plugins.map(\.name))
    ///     case .event(let event): print(event.kind, event.name, event.version ?? "")
    ///     }
    /// }
    /// ```
    ///
    /// The watch has a connection of its own, opened here; it closes when the sequence ends, when it throws, when
    /// the task iterating it is cancelled, or on ``NavHostStream/close()``. The screens a change rebuilds or pops
    /// reach a session's watchers (``watch(session:resumeFrom:)``) as ordinary revisions.
    ///
    /// - Throws: ``NavHostClientError/Code/daemonUnreachable`` when the watch's connection cannot be opened. Error
    ///   replies are thrown while iterating.
    public func watchPlugins() async throws(NavHostClientError) -> NavHostPluginWatch {
        try await stream(
            [:],
            decoder: NavHostPluginWatch.ReplyDecoder(
                method: Self.pluginsMethod("Watch"),
                wholeKey: "plugins",
                whole: { plugins, coalesced in .plugins(plugins, coalesced: coalesced) },
                event: { event in .event(event) }
            )
        )
    }
}

// MARK: - NavHostPluginWatch

/// One update of a plugin watch.
public enum PluginWatchUpdate: Sendable, Hashable {
    /// Every plugin, loaded or quarantined; `coalesced` is `true` when it stands in for events this client was too
    /// slow to take.
    case plugins([PluginInfo], coalesced: Bool)
    /// One change.
    case event(PluginEvent)
}

/// The changes to the daemon's plugins, in the order they happen: an AsyncSequence of ``PluginWatchUpdate``s.
///
/// The first update lists every plugin. Then comes one event per change, or, when this client was too slow to take
/// events one by one, the whole list again with `coalesced` set, standing in for them.
///
/// The sequence ends (returns `nil`) when the daemon ends the watch with a final reply, or when the iterating task is
/// cancelled. It throws a ``NavHostClientError`` when the daemon answers with an error
/// (`io.navhost.varlink.ServiceShuttingDown` when it stops) or the connection closes. Iterate it once.
public typealias NavHostPluginWatch = NavHostStream<PluginWatchUpdate>
