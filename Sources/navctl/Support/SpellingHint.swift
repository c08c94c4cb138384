import NavHostClient
import NavHostSpelling

/// A name the daemon did not know, and the one it probably should have been: `products.lsit` for `products.list`.
/// The daemon's error names what was asked; the hint asks the daemon what there is (the routes, the plugins, the
/// sessions; a screen's intents come with the error) and names the closest.
enum SpellingHint {
    /// A line for standard error after `error`, when it refused a route, intent, plugin or session name that is
    /// spelt like one `client`'s daemon has; `nil` otherwise, or when the daemon does not say what it has.
    static func line(after error: NavHostClientError, asking client: NavHostClient) async -> String? {
        guard let (asked, names) = await askedAndKnown(error, client: client),
            let closest = Spelling.closest(to: asked, among: names)
        else { return nil }
        return "hint: did you mean '\(closest)'?"
    }

    /// ``line(after:asking:)`` over a connection of its own to `socketPath`, for an error that came on a stream's
    /// connection (a watch): `nil` as well when the daemon cannot be reached.
    static func line(after error: NavHostClientError, connectingTo socketPath: String) async -> String? {
        guard let client = try? await NavHostClient.connect(socketPath: socketPath) else { return nil }
        let line = await line(after: error, asking: client)
        await client.close()
        return line
    }

    /// The name `error` refused, and the names of its kind the daemon has.
    private static func askedAndKnown(
        _ error: NavHostClientError,
        client: NavHostClient
    ) async -> (String, [String])? {
        switch error.code {
        case .routeNotFound:
            guard let route = error.parameters["route"]?.stringValue,
                let routes = try? await client.routes()
            else { return nil }
            return (route, routes.map(\.route))
        case .intentNotFound:
            guard let intent = error.parameters["intent"]?.stringValue,
                let intents = error.parameters["intents"]?.arrayValue?.compactMap(\.stringValue)
            else { return nil }
            return (intent, intents)
        case .pluginNotFound where error.parameters["unloadedFolder"] == nil:
            guard let name = error.parameters["name"]?.stringValue, let plugins = try? await client.plugins() else {
                return nil
            }
            return (name, plugins.filter { $0.state == .loaded }.map(\.name))
        case .sessionNotFound where error.parameters["reason"] == nil:
            guard let session = error.parameters["session"]?.stringValue,
                let sessions = try? await client.sessions()
            else { return nil }
            return (session, sessions)
        default:
            return nil
        }
    }
}
