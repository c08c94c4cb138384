internal import NavHostJSON
public import NavHostWire

// MARK: - Starting a watch

extension NavHostClient {
    /// Follows a session (`Watch`): a snapshot first, then one event per revision, as they happen.
    ///
    /// ```swift
    /// var session = SessionSnapshot(session: "main", revision: 0, stack: [])
    /// for try await update in try await client.watch() {
    ///     session.apply(update)                            // keeps a local copy of the session current
    ///     print(session.revision, session.top?.state ?? "no screen")
    /// }
    /// ```
    ///
    /// The watch has a connection of its own, opened here; it closes when the sequence ends, when it throws, when
    /// the task iterating it is cancelled, or on ``NavHostStream/close()``.
    ///
    /// - Parameters:
    ///   - session: The session to follow; `main` when `nil`.
    ///   - resumeFrom: The last revision the caller has seen (after a reconnect, say). The daemon then sends the
    ///     events after it if it still holds them, otherwise a snapshot.
    /// - Throws: ``NavHostClientError/Code/daemonUnreachable`` when the watch's connection cannot be opened. Error
    ///   replies (`SessionNotFound`, `WatcherTooSlow`) are thrown while iterating.
    public func watch(
        session: String? = nil,
        resumeFrom: UInt64? = nil
    ) async throws(NavHostClientError) -> NavHostWatch {
        try await stream(
            WatchParameters(session: session, resumeFrom: resumeFrom).jsonObject,
            decoder: NavHostWatch.ReplyDecoder(
                method: Self.method("Watch"),
                wholeKey: "snapshot",
                whole: { snapshot, coalesced in .snapshot(snapshot, coalesced: coalesced) },
                event: { event in .event(event) }
            )
        )
    }
}

// MARK: - NavHostWatch

/// One update of a session watch.
public enum SessionUpdate: Sendable, Hashable {
    /// The whole session; `coalesced` is `true` when it stands in for events this client was too slow to take.
    case snapshot(SessionSnapshot, coalesced: Bool)
    /// One change, in revision order.
    case event(SessionEvent)
}

/// The updates of a watched session, in revision order: an AsyncSequence of ``SessionUpdate``s.
///
/// The first update is a snapshot. Then comes one event per revision, or, when this client was too slow to take
/// events one by one, a snapshot with `coalesced` set that stands in for them. Apply each to a local
/// `SessionSnapshot` with `apply(_:)` to hold the session as it is.
///
/// The sequence ends (returns `nil`) when the daemon ends the watch with a final reply, or when the iterating task is
/// cancelled. It throws a ``NavHostClientError`` when the daemon answers with an error (`SessionNotFound`,
/// `WatcherTooSlow`, `io.navhost.varlink.ServiceShuttingDown` when it stops) or the connection closes. Iterate it
/// once.
public typealias NavHostWatch = NavHostStream<SessionUpdate>
