internal import NavHostClient
internal import NavHostJSON

// MARK: - InspectorDaemonFeed

/// Follows the daemon for the inspector: its plugins, and every open session, each with a feed of its own.
///
/// The session list is followed with `WatchSessions`: a session opened is followed from then on, and a closed one
/// ends its own watch. When the daemon goes away, the pages are told, and the feed connects again every second until
/// it is back.
struct InspectorDaemonFeed: Sendable {
    /// The daemon's socket.
    let socketPath: String
    /// Where what it sees goes.
    let hub: InspectorHub

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
            do {
                for try await update in try await client.watchSessions() {
                    let opened: [String]
                    switch update {
                    case .sessions(let names, _): opened = names
                    case .event(let event) where event.kind == .opened: opened = [event.name]
                    case .event: opened = []  // a closed session's own watch ends by itself
                    }
                    for name in opened where await hub.startFollowing(name) {
                        group.addTask { await InspectorSessionFeed(session: name, client: client, hub: hub).run() }
                    }
                }
            } catch {
                // The daemon went away or ended the watch: the caller connects again.
            }
            group.cancelAll()
        }
        for name in await hub.followedSessions { await hub.sessionEnded(name) }
    }
}
