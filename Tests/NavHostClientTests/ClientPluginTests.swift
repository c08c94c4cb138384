import NavHostClient
import NavHostJSON
import NavHostTestSupport
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
                "io.navhost.Plugins.PluginRefused",
                ["code": "checksumMismatch", "message": "the library's SHA-256 does not match the manifest"],
                .pluginRefused,
                "the plugin was refused (checksumMismatch): the library's SHA-256 does not match the manifest"
            ),
            (
                "org.varlink.service.PermissionDenied", [:], .permissionDenied,
                "the daemon does not allow this user to make that call"
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
}
