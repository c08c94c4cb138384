internal import NavHostClient
internal import NavHostJSON
import NavHostWire

// MARK: - InspectorPluginFeed

/// Follows the daemon's plugins for the inspector (`io.navhost.Plugins.Watch`): after every change, the plugins and
/// the routes they offer (with each route's declared intents, for the page's intent form) go to the pages.
struct InspectorPluginFeed: Sendable {
    /// The client the watch is opened from and the lists are read with.
    let client: NavHostClient
    /// Where what it sees goes.
    let hub: InspectorHub

    // MARK: - Lifecycle

    /// Follows the plugins until the watch ends or the task is cancelled.
    func run() async {
        do {
            for try await update in try await client.watchPlugins() {
                let plugins: [PluginInfo]
                switch update {
                case .plugins(let all, _): plugins = all
                case .event: plugins = try await client.plugins()
                }
                let routes = try await client.routes()
                await hub.pluginsChanged(
                    plugins: try JSONValueEncoder().encode(plugins),
                    routes: try JSONValueEncoder().encode(routes)
                )
            }
        } catch {
            // The daemon went away, or stops: the daemon feed notices and connects again.
        }
    }
}
