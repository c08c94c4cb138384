internal import NavHostClient
internal import NavHostJSON

// MARK: - InspectorDaemonFeed

/// Follows the daemon for the inspector: its plugins, and every open session, each with a feed of its own.
///
/// The daemon has no call that streams sessions as they open and close, so the list (`Sessions`) is read again
/// every ``sessionPollInterval``: a new session is followed from then on, and a closed one ends its own watch. When
/// the daemon goes away, the pages are told, and the feed connects again every second until it is back.
struct InspectorDaemonFeed: Sendable {
    /// The daemon's socket.
    let socketPath: String
    /// Where what it sees goes.
    let hub: InspectorHub
    /// How often the session list is read.
    var sessionPollInterval: Duration = .milliseconds(500)

    // MARK: - Lifecycle

    /// Connects, or throws when the daemon cannot be reached at all.
    func connect() async throws(NavHostClientError) -> NavHostClient {
        try await NavHostClient.connect(socketPath: socketPath)
    }

    /// Follows the daemon through `client` (from ``connect()``), then through new connections each time it comes
    /// back, until the task is cancelled.
    func run(startingWith client: NavHostClient) async {
        var client: NavHostClient? = client
        while !Task.isCancelled {
            if let connected = client {
                await hub.daemonConnected(true)
                await follow(connected)
                await connected.close()
                await hub.daemonConnected(false)
            }
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                return
            }
            client = try? await connect()
        }
    }
}

// MARK: - Private Functions

private extension InspectorDaemonFeed {
    /// Follows the plugins and the sessions until the daemon stops answering.
    func follow(_ client: NavHostClient) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await InspectorPluginFeed(client: client, hub: hub).run() }
            while !Task.isCancelled {
                guard let names = try? await client.sessions() else { break }
                for name in names {
                    guard await hub.startFollowing(name) else { continue }
                    group.addTask { await InspectorSessionFeed(session: name, client: client, hub: hub).run() }
                }
                do {
                    try await Task.sleep(for: sessionPollInterval)
                } catch {
                    break
                }
            }
            group.cancelAll()
        }
        for name in await hub.followedSessions { await hub.sessionEnded(name) }
    }
}
