internal import NavHostJSON
internal import NavHostVarlink
internal import Synchronization

// MARK: - NavHostStream

/// The updates of a `more` call that follows something in the daemon, in the order the daemon sends them: an
/// AsyncSequence of `Element`s, on a connection of its own.
///
/// ``NavHostWatch`` follows a session (``NavHostClient/watch(session:resumeFrom:)``), ``NavHostPluginWatch`` the
/// plugins (``NavHostClient/watchPlugins()``). Both start with the whole of what they follow, then bring one event per
/// change, or, when this client was too slow to take events one by one, the whole again with `coalesced` set.
///
/// The sequence ends (returns `nil`) when the daemon ends the call with a final reply, when the iterating task is
/// cancelled, or after ``close()``. It throws a ``NavHostClientError`` when the daemon answers with an error
/// (`io.navhost.varlink.ServiceShuttingDown` when it stops, say) or the connection closes. Its connection is closed
/// whichever way it ends. Iterate it once.
public struct NavHostStream<Element: Sendable>: AsyncSequence, Sendable {
    /// One update: ``NavHostWatch/Update`` is a session's, ``NavHostPluginWatch/Update`` the plugins'.
    public typealias Update = Element
    /// Iterating throws only ``NavHostClientError``.
    public typealias Failure = NavHostClientError

    private let connection: StreamConnection
    private let replies: VarlinkReplySequence
    private let decoder: ReplyDecoder

    init(connection: StreamConnection, replies: VarlinkReplySequence, decoder: ReplyDecoder) {
        self.connection = connection
        self.replies = replies
        self.decoder = decoder
    }

    /// Ends the stream and closes its connection; an iteration under way ends.
    public func close() async {
        await connection.close()
    }

    /// An iterator over the updates; iterate a stream once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(connection: connection, replies: replies.makeAsyncIterator(), decoder: decoder)
    }

    /// Iterates the updates.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let connection: StreamConnection
        private var replies: VarlinkReplySequence.AsyncIterator
        private let decoder: ReplyDecoder
        /// Whether a reply came: a connection closed after it is not one closed before the daemon answered.
        private var answered = false

        init(connection: StreamConnection, replies: VarlinkReplySequence.AsyncIterator, decoder: ReplyDecoder) {
            self.connection = connection
            self.replies = replies
            self.decoder = decoder
        }

        /// The next update, or `nil` once the stream has ended or the task was cancelled.
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
                    throw NavHostClientError.converting(error, method: decoder.method, answered: answered)
                }
                guard let reply else {
                    await connection.close()
                    return nil
                }
                answered = true
                // The final reply of a stream the daemon ends carries no update.
                if reply.isEmpty { continue }
                do {
                    return try decoder.update(reply)
                } catch {
                    await connection.close()
                    throw error
                }
            }
        }
    }
}

// MARK: - Decoding replies

extension NavHostStream {
    /// Turns one reply into an update: the reply carries either `event`, or the whole under `wholeKey` (and
    /// `coalesced` when it stands in for events).
    struct ReplyDecoder: Sendable {
        /// The method streaming, for error messages.
        let method: String
        let update: @Sendable (JSONObject) throws(NavHostClientError) -> Update

        /// Decodes each reply with `update`.
        init(method: String, update: @escaping @Sendable (JSONObject) throws(NavHostClientError) -> Update) {
            self.method = method
            self.update = update
        }

        init<Whole: Decodable & SendableMetatype, Event: Decodable & SendableMetatype>(
            method: String,
            wholeKey: String,
            whole: @escaping @Sendable (Whole, _ coalesced: Bool) -> Update,
            event: @escaping @Sendable (Event) -> Update
        ) {
            self.method = method
            self.update = { reply throws(NavHostClientError) in
                do {
                    if let value = reply["event"], !value.isNull {
                        return event(try JSONValueDecoder().decode(Event.self, from: value))
                    }
                    if let value = reply[wholeKey], !value.isNull {
                        return whole(
                            try JSONValueDecoder().decode(Whole.self, from: value),
                            reply["coalesced"]?.boolValue ?? false
                        )
                    }
                } catch {
                    throw NavHostClientError.converting(error, method: method)
                }
                throw NavHostClientError(
                    code: .protocolViolation,
                    message: "a reply to \(method) has neither \"\(wholeKey)\" nor \"event\""
                )
            }
        }
    }
}

// MARK: - Starting a stream

extension NavHostClient {
    /// Calls `decoder.method` with `more` on a connection of its own, opened here.
    ///
    /// - Throws: ``NavHostClientError/Code/daemonUnreachable`` when the connection cannot be opened. Error replies
    ///   are thrown while iterating.
    func stream<Update>(
        _ parameters: JSONObject,
        decoder: NavHostStream<Update>.ReplyDecoder
    ) async throws(NavHostClientError) -> NavHostStream<Update> {
        let connection = try await Self.openConnection(to: socketPath)
        let replies = connection.callMore(decoder.method, parameters: parameters)
        return NavHostStream(connection: StreamConnection(connection), replies: replies, decoder: decoder)
    }
}

// MARK: - StreamConnection

/// A stream's own connection, closed by whichever side gets there first; closing it again does nothing.
final class StreamConnection: Sendable {
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
