import IntegrationHarness
import NavHostClient
import NavHostJSON
import Testing

/// The `io.navhost.Plugins` methods against a scripted service that serves the real interface definition: what goes
/// on the wire, what comes back, and how the plugin errors arrive.
@Suite("NavHostClient plugins")
struct ClientPluginTests {
    @Test("Load sends the path, Reload and Unload the name; Load and Reload decode the plugin")
    func changes() async throws {
        try await withScriptedService([
            "io.navhost.Plugins.Load": .reply(["plugin": NavigationSamples.productsPlugin]),
            "io.navhost.Plugins.Reload": .reply(["plugin": NavigationSamples.reloadedProductsPlugin]),
            "io.navhost.Plugins.Unload": .reply([:]),
        ]) { service, client in
            let loaded = try await client.loadPlugin(at: "/usr/lib/navhost/plugins/Products")
            let reloaded = try await client.reloadPlugin(named: "Products")
            try await client.unloadPlugin(named: "Products")

            #expect(loaded.name == "Products")
            #expect(loaded.state == .loaded)
            #expect(loaded.routes == ["products.list", "products.detail"])
            #expect(reloaded.version == "1.1.0")
            #expect(reloaded.path == "/var/lib/navhost/plugin-images/Products-2.so")
            #expect(
                service.calls == [
                    .init(method: "io.navhost.Plugins.Load", parameters: ["path": "/usr/lib/navhost/plugins/Products"]),
                    .init(method: "io.navhost.Plugins.Reload", parameters: ["name": "Products"]),
                    .init(method: "io.navhost.Plugins.Unload", parameters: ["name": "Products"]),
                ]
            )
        }
    }

    @Test("List decodes a loaded plugin's last refused reload, and encodes it back")
    func lastReloadFailure() async throws {
        var plugin = try #require(NavigationSamples.productsPlugin.objectValue)
        plugin["lastReloadFailure"] = ["code": "checksumMismatch", "message": "the SHA-256 does not match"]
        try await withScriptedService([
            "io.navhost.Plugins.List": .reply(["plugins": [.object(plugin)]])
        ]) { _, client in
            let listed = try #require(try await client.plugins().first)

            #expect(listed.state == .loaded)
            #expect(listed.quarantine == nil)
            #expect(
                listed.lastReloadFailure
                    == PluginInfo.Quarantine(code: "checksumMismatch", message: "the SHA-256 does not match")
            )
            #expect(try JSONValueEncoder().encode(listed) == .object(plugin))
        }
    }

    @Test(
        "PluginNotFound and PluginRefused keep their parameters, get their codes and say so in words",
        arguments: [
            (
                "io.navhost.Plugins.PluginNotFound", ["name": "Nope"], NavHostClientError.Code.pluginNotFound,
                #"no loaded plugin is named "Nope""#
            ),
            (
                "io.navhost.Plugins.PluginNotFound", ["name": "Settings", "unloadedFolder": "/srv/plugins/Settings"],
                .pluginNotFound,
                #"no loaded plugin is named "Settings": it was unloaded by hand; plugins load /srv/plugins/Settings brings it back"#
            ),
            (
                "io.navhost.Plugins.PluginRefused",
                ["code": "checksumMismatch", "message": "the library's SHA-256 does not match the manifest"],
                .pluginRefused,
                "refused (checksumMismatch): the library's SHA-256 does not match the manifest"
            ),
            (
                "org.varlink.service.PermissionDenied", [:], .permissionDenied,
                "the daemon does not allow this user to make that call (control calls need root, the navhost group, or a user or group "
                    + "navhostd.conf's control.users or control.groups names)"
            ),
        ] as [(String, JSONObject, NavHostClientError.Code, String)]
    )
    func refusals(name: String, parameters: JSONObject, code: NavHostClientError.Code, message: String) async throws {
        try await withScriptedService([
            "io.navhost.Plugins.Reload": .error(name, parameters)
        ]) { _, client in
            let error = try await #require(throws: NavHostClientError.self) {
                try await client.reloadPlugin(named: "Nope")
            }
            #expect(error.code == code)
            #expect(error.errorName == name)
            #expect(error.parameters == parameters)
            #expect(error.message == message)
        }
    }

    // MARK: - Watching

    @Test("A plugin watch yields the plugins, each event and a coalesced list in order, then ends with the final reply")
    func watchUpdatesInOrder() async throws {
        try await withScriptedService([
            "io.navhost.Plugins.Watch": .stream(NavigationSamples.pluginWatchReplies, end: .finalReply)
        ]) { service, client in
            var received: [PluginWatchUpdate] = []
            for try await update in try await client.watchPlugins() {
                received.append(update)
            }

            try #require(received.count == 7)
            guard case .plugins(let first, coalesced: false) = received[0] else {
                Issue.record("the first update is not the plain list: \(received[0])")
                return
            }
            #expect(first.map(\.name) == ["Products", "Weather", "Settings", "Orders", "Settings"])
            #expect(first[1].quarantine?.code == "sdkMismatch")
            #expect(
                received[1]
                    == .event(
                        PluginEvent(
                            kind: .reloaded,
                            name: "Products",
                            version: "1.1.0",
                            previousVersion: "1.0.0",
                            path: "/var/lib/navhost/plugin-images/Products-2.so"
                        )
                    )
            )
            let removed = PluginEvent(kind: .removed, name: "Weather", folder: "/usr/lib/navhost/plugins/Weather")
            #expect(received[2] == .event(removed))
            guard case .event(let loaded) = received[3], case .event(let failed) = received[4] else {
                Issue.record("updates 4 and 5 are not events: \(received[3]), \(received[4])")
                return
            }
            #expect(loaded.kind == .loaded)
            #expect(loaded.version == "0.1.0")
            #expect(failed.kind == .failed)
            #expect(failed.reason?.code == "checksumMismatch")
            #expect(failed.folder == "/usr/lib/navhost/plugins/Products")
            guard case .event(let checked) = received[5] else {
                Issue.record("update 6 is not an event: \(received[5])")
                return
            }
            #expect(checked.kind == .checked)
            #expect(checked.folder == "/usr/lib/navhost/plugins/Products")
            guard case .plugins(let coalesced, coalesced: true) = received[6] else {
                Issue.record("the last update is not a coalesced list: \(received[6])")
                return
            }
            #expect(coalesced.map(\.version) == ["1.1.0"])
            #expect(service.calls == [.init(method: "io.navhost.Plugins.Watch", parameters: [:])])
        }
    }

    @Test("An event kind this library does not know keeps its wire name")
    func unknownEventKind() async throws {
        try await withScriptedService([
            "io.navhost.Plugins.Watch": .stream(
                [NavigationSamples.pluginsReply, ["event": ["kind": "paused", "name": "Products"]]],
                end: .finalReply
            )
        ]) { _, client in
            var received: [PluginWatchUpdate] = []
            for try await update in try await client.watchPlugins() { received.append(update) }
            #expect(received.last == .event(PluginEvent(kind: PluginEvent.Kind(rawValue: "paused"), name: "Products")))
        }
    }

    @Test("An error reply that ends a plugin watch is thrown with its name; a malformed reply is a protocol violation")
    func watchFailures() async throws {
        try await withScriptedService([
            "io.navhost.Plugins.Watch": .stream(
                [NavigationSamples.pluginsReply],
                end: .error("io.navhost.varlink.ServiceShuttingDown")
            )
        ]) { service, client in
            var count = 0
            let shutDown = try await #require(throws: NavHostClientError.self) {
                for try await _ in try await client.watchPlugins() { count += 1 }
            }
            #expect(count == 1)
            #expect(shutDown.code == .serviceShuttingDown)

            service.answer("io.navhost.Plugins.Watch", with: .stream([["coalesced": true]], end: .finalReply))
            let malformed = try await #require(throws: NavHostClientError.self) {
                for try await _ in try await client.watchPlugins() {}
            }
            #expect(malformed.code == .protocolViolation)
            #expect(malformed.message.contains("io.navhost.Plugins.Watch"))
        }
    }
}
