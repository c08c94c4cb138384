internal import NavHostJSON
public import NavHostWire

// MARK: - Starting a session-list watch

extension NavHostClient {
    /// Follows the session list (`WatchSessions`): every open session's name first, then one event per session opened
    /// or closed, as it happens (by `OpenSession` and `CloseSession`, or by a configuration reload).
    ///
    /// ```swift
    /// for try await update in try await client.watchSessions() {
    ///     switch update {
    ///     case .sessions(let names, _): print(names)
    ///     case .event(let event): print(event.kind, event.name)
    ///     }
    /// }
    /// ```
    ///
    /// The watch has a connection of its own, opened here, and ends as a ``NavHostPluginWatch`` does.
    ///
    /// - Throws: ``NavHostClientError/Code/daemonUnreachable`` when the watch's connection cannot be opened. Error
    ///   replies (`WatcherTooSlow`) are thrown while iterating.
    public func watchSessions() async throws(NavHostClientError) -> NavHostSessionListWatch {
        try await stream(
            [:],
            decoder: NavHostSessionListWatch.ReplyDecoder(
                method: Self.method("WatchSessions"),
                wholeKey: "sessions",
                whole: { (names: [String], coalesced) in .sessions(names, coalesced: coalesced) },
                event: { (event: SessionListEvent) in .event(event) }
            )
        )
    }
}

// MARK: - NavHostSessionListWatch

/// One update of a session-list watch.
public enum SessionListUpdate: Sendable, Hashable {
    /// Every open session's name, sorted; `coalesced` is `true` when it stands in for events this client was too slow
    /// to take.
    case sessions([String], coalesced: Bool)
    /// One session opened or closed.
    case event(SessionListEvent)
}

/// The session list as it changes: an AsyncSequence of ``SessionListUpdate``s, which ends and throws as
/// ``NavHostPluginWatch`` does. Iterate it once.
public typealias NavHostSessionListWatch = NavHostStream<SessionListUpdate>
