internal import NavHostJSON
internal import NavHostVarlink
// The wire model (snapshots, events, results, recordings) is part of this library's API: `import NavHostClient` brings
// it along, as NIO's umbrella modules bring theirs.
@_exported public import NavHostWire

/// A connection to `navhostd`, with a typed `async` method for every method of `io.navhost.Navigation` and
/// `io.navhost.Plugins`.
///
/// ```swift
/// let client = try await NavHostClient.connect()                   // the default socket, see defaultSocketPath
/// let pushed = try await client.navigate(to: "products.list")
/// let sent = try await client.send("onChangedFilter", arguments: ["text": "lamp"])
/// print(sent.revision, sent.screen?.state ?? "closed")
///
/// for try await update in try await client.watch() {
///     switch update {
///     case .snapshot(let snapshot, let coalesced): print("snapshot", snapshot.revision, coalesced)
///     case .event(let event): print("event", event.revision)
///     }
/// }
/// await client.close()
/// ```
///
/// Calls may be made from many tasks at once; they are pipelined on the one connection and the daemon answers them
/// in order. ``watch(session:resumeFrom:)`` and ``watchPlugins()`` open a connection of their own each, because a
/// Varlink connection carries nothing else while a `more` call streams.
///
/// Methods that take a `session` use the daemon's default session, `main`, when it is `nil`. Every failure is a
/// ``NavHostClientError``.
public final class NavHostClient: Sendable {
    /// The path of the daemon's socket this client is connected to.
    public let socketPath: String

    private let connection: VarlinkClient

    private init(socketPath: String, connection: VarlinkClient) {
        self.socketPath = socketPath
        self.connection = connection
    }

    // MARK: - Connecting

    /// Connects to the daemon.
    ///
    /// - Parameter socketPath: The daemon's socket; ``defaultSocketPath(environment:userID:)`` when `nil`.
    /// - Throws: ``NavHostClientError/Code/daemonUnreachable`` when the socket is missing, nobody listens on it, or
    ///   the caller may not open it.
    public static func connect(socketPath: String? = nil) async throws(NavHostClientError) -> NavHostClient {
        let path = socketPath ?? defaultSocketPath()
        return NavHostClient(socketPath: path, connection: try await openConnection(to: path))
    }

    /// Connects, runs `body` with the client, and closes the connection however `body` ends.
    ///
    /// ```swift
    /// let stack = try await NavHostClient.withConnection { try await $0.stack() }
    /// ```
    public static func withConnection<Result>(
        socketPath: String? = nil,
        _ body: (NavHostClient) async throws -> Result
    ) async throws -> Result {
        let client = try await connect(socketPath: socketPath)
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    /// Closes the connection. Calls still waiting fail with ``NavHostClientError/Code/connectionClosed``; watches
    /// have connections of their own and go on.
    public func close() async {
        try? await connection.close()
    }

    static func openConnection(to socketPath: String) async throws(NavHostClientError) -> VarlinkClient {
        do {
            return try await VarlinkClient.connect(unixSocketPath: socketPath, maxMessageSize: maxReplySize)
        } catch {
            throw NavHostClientError.unreachable(socketPath: socketPath, cause: error)
        }
    }

    // MARK: - Calling

    /// Calls `method` and decodes its output parameters as `Output`.
    func call<Output: Decodable>(
        _ method: String,
        _ parameters: JSONObject,
        as output: Output.Type
    ) async throws(NavHostClientError) -> Output {
        do {
            let reply = try await connection.call(method, parameters: parameters)
            return try JSONValueDecoder().decode(output, from: .object(reply))
        } catch {
            throw NavHostClientError.converting(error, method: method)
        }
    }
}

// MARK: - Interface names

extension NavHostClient {
    /// `io.navhost.Navigation`: sessions, their stacks, and the intents screens handle.
    public static let navigationInterface = NavHostInterfaceName.navigation
    /// `io.navhost.Plugins`: what is loaded, and what was refused and why.
    public static let pluginsInterface = NavHostInterfaceName.plugins
}

// MARK: - Limits

extension NavHostClient {
    /// The largest reply accepted, in bytes: 64 MiB. The daemon's own limit bounds what a client sends it (1 MiB by
    /// default); what it answers may be larger, a `Recording` of a deep stack over many calls above all.
    public static let maxReplySize = 64 << 20
}
