public import NavHostCore
internal import NavHostJSON
internal import NavHostVarlink
internal import Synchronization

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
    /// the task iterating it is cancelled, or on ``NavHostWatch/close()``.
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
        let connection = try await Self.openConnection(to: socketPath)
        var parameters = Self.parameters(session: session)
        if let resumeFrom { parameters["resumeFrom"] = .int(Int64(clamping: resumeFrom)) }
        let replies = connection.callMore(Self.method("Watch"), parameters: parameters)
        return NavHostWatch(connection: NavHostWatch.Connection(connection), replies: replies)
    }
}

// MARK: - NavHostWatch

/// The updates of a watched session, in revision order: an AsyncSequence of ``Update``s.
///
/// The first update is a snapshot. Then comes one event per revision, or, when this client was too slow to take
/// events one by one, a snapshot with `coalesced` set that stands in for them. Apply each to a local
/// `SessionSnapshot` with `apply(_:)` to hold the session as it is.
///
/// The sequence ends (returns `nil`) when the daemon ends the watch with a final reply, or when the iterating task is
/// cancelled. It throws a ``NavHostClientError`` when the daemon answers with an error (`SessionNotFound`,
/// `WatcherTooSlow`, `io.navhost.varlink.ServiceShuttingDown` when it stops) or the connection closes. Iterate it
/// once.
public struct NavHostWatch: AsyncSequence, Sendable {
    /// One update: a whole snapshot (`coalesced` when it replaces events this client was too slow to take) or one
    /// event.
    public typealias Update = SessionWatcher.Update
    /// The updates.
    public typealias Element = Update
    /// Iterating throws only ``NavHostClientError``.
    public typealias Failure = NavHostClientError

    private let connection: Connection
    private let replies: VarlinkReplySequence

    init(connection: Connection, replies: VarlinkReplySequence) {
        self.connection = connection
        self.replies = replies
    }

    /// Ends the watch and closes its connection; an iteration under way ends.
    public func close() async {
        await connection.close()
    }

    /// An iterator over the updates; iterate a watch once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(connection: connection, replies: replies.makeAsyncIterator())
    }

    /// Iterates the updates.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let connection: Connection
        private var replies: VarlinkReplySequence.AsyncIterator

        init(connection: Connection, replies: VarlinkReplySequence.AsyncIterator) {
            self.connection = connection
            self.replies = replies
        }

        /// The next update, or `nil` once the watch has ended or the task was cancelled.
        public mutating func next() async throws(NavHostClientError) -> Update? {
            let connection = self.connection
            while true {
                let reply: JSONObject?
                do {
                    reply = try await withTaskCancellationHandler {
                        try await replies.next()
                    } onCancel: {
                        connection.closeSoon()
                    }
                } catch {
                    let endedHere = Task.isCancelled || connection.closedByClient
                    await connection.close()
                    if endedHere { return nil }
                    throw NavHostClientError.converting(error, method: NavHostClient.method("Watch"))
                }
                guard let reply else {
                    await connection.close()
                    return nil
                }
                // The final reply of a watch the daemon ends carries no update.
                if reply.isEmpty { continue }
                do {
                    return try Self.update(from: reply)
                } catch {
                    await connection.close()
                    throw error
                }
            }
        }

        private static func update(from reply: JSONObject) throws(NavHostClientError) -> Update {
            do {
                if let event = reply["event"], !event.isNull {
                    return .event(try JSONValueDecoder().decode(SessionEvent.self, from: event))
                }
                if let snapshot = reply["snapshot"], !snapshot.isNull {
                    return .snapshot(
                        try JSONValueDecoder().decode(SessionSnapshot.self, from: snapshot),
                        coalesced: reply["coalesced"]?.boolValue ?? false
                    )
                }
            } catch {
                throw NavHostClientError.converting(error, method: NavHostClient.method("Watch"))
            }
            throw NavHostClientError(
                code: .protocolViolation,
                message: "a reply to \(NavHostClient.method("Watch")) has neither a snapshot nor an event"
            )
        }
    }
}

// MARK: - Connection

extension NavHostWatch {
    /// The watch's own connection, closed by whichever side gets there first; closing it again does nothing.
    final class Connection: Sendable {
        private let client: VarlinkClient
        private let closed = Atomic(false)

        init(_ client: VarlinkClient) {
            self.client = client
        }

        /// Whether ``close()`` or ``closeSoon()`` was called.
        var closedByClient: Bool { closed.load(ordering: .acquiring) }

        func close() async {
            closed.store(true, ordering: .releasing)
            try? await client.close()
        }

        /// Starts closing without waiting, for a cancellation handler.
        func closeSoon() {
            closed.store(true, ordering: .releasing)
            let client = self.client
            Task { try? await client.close() }
        }

        deinit {
            let client = self.client
            Task { try? await client.close() }
        }
    }
}
