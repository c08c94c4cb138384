import IntegrationHarness
import NavHostClient
import NavHostJSON
import NavHostKit
import NavHostWire
import Testing

/// Each typed method against a scripted service that serves the real interface definitions: what goes on the wire,
/// and what comes back.
@Suite("NavHostClient calls")
struct ClientCallTests {
    @Test("Stack sends the session only when one is named and decodes the snapshot")
    func stack() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Stack": .reply(NavigationSamples.stackReply)
        ]) { service, client in
            let main = try await client.stack()
            _ = try await client.stack(session: "kiosk")

            #expect(main.session == "main")
            #expect(main.revision == 4)
            #expect(main.stack.map(\.id) == [ScreenID("s1"), ScreenID("s2")])
            #expect(main.top?.route.id == "products.list")
            #expect(main.top?.state["value"]?["matchCount"] == 1)
            #expect(service.calls.map(\.parameters) == [[:], ["session": "kiosk"]])
        }
    }

    @Test("Navigate and Present send the route and its parameters and decode the new screen")
    func navigateAndPresent() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Navigate": .reply(["revision": 5, "screen": NavigationSamples.productDetail]),
            "io.navhost.Navigation.Present": .reply(["revision": 6, "screen": NavigationSamples.settings]),
        ]) { service, client in
            let pushed = try await client.navigate(to: "products.detail", parameters: ["productID": "p3"])
            let plain = try await client.navigate(to: RouteRequest(id: "products.detail"), session: "kiosk")
            let presented = try await client.present("settings.main")

            #expect(pushed.revision == 5)
            #expect(pushed.screen.id == ScreenID("s3"))
            #expect(pushed.screen.route == RouteRequest(id: "products.detail", parameters: ["productID": "p3"]))
            #expect(plain.screen.presentation == .push)
            #expect(presented.revision == 6)
            #expect(presented.screen.presentation == .modal)
            #expect(
                service.calls == [
                    .init(
                        method: "io.navhost.Navigation.Navigate",
                        parameters: ["route": "products.detail", "parameters": ["productID": "p3"]]
                    ),
                    .init(
                        method: "io.navhost.Navigation.Navigate",
                        parameters: ["session": "kiosk", "route": "products.detail"]
                    ),
                    .init(method: "io.navhost.Navigation.Present", parameters: ["route": "settings.main"]),
                ]
            )
        }
    }

    @Test("Pop, PopToRoot, PopTo and Dismiss decode the removed screens, topmost first")
    func removals() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Pop": .reply(["revision": 7, "removed": ["s3"]]),
            "io.navhost.Navigation.PopToRoot": .reply(["revision": 7, "removed": []]),
            "io.navhost.Navigation.PopTo": .reply(["revision": 8, "removed": ["s4", "s3"]]),
            "io.navhost.Navigation.Dismiss": .reply(["revision": 9, "removed": ["s4"]]),
        ]) { service, client in
            #expect(try await client.pop() == PopResult(revision: 7, removed: [ScreenID("s3")]))
            #expect(try await client.popToRoot(session: "kiosk") == PopResult(revision: 7, removed: []))
            #expect(try await client.popTo("products.list").removed == [ScreenID("s4"), ScreenID("s3")])
            _ = try await client.popTo("products.detail", parameters: ["productID": "p3"])
            #expect(try await client.dismiss().revision == 9)

            #expect(
                service.calls.map(\.parameters) == [
                    [:],
                    ["session": "kiosk"],
                    ["route": "products.list"],
                    ["route": "products.detail", "parameters": ["productID": "p3"]],
                    [:],
                ]
            )
        }
    }

    @Test("Replace sends each route with its parameters, root first, and decodes the new stack")
    func replace() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Replace": .reply([
                "revision": 10, "stack": [NavigationSamples.home, NavigationSamples.productDetail],
            ])
        ]) { service, client in
            let replaced = try await client.replace(with: [
                RouteRequest(id: "home.main"),
                RouteRequest(id: "products.detail", parameters: ["productID": "p3"]),
            ])

            #expect(replaced.revision == 10)
            #expect(replaced.stack.map(\.route.id) == ["home.main", "products.detail"])
            #expect(
                service.calls.first?.parameters == [
                    "routes": [
                        ["route": "home.main"], ["route": "products.detail", "parameters": ["productID": "p3"]],
                    ]
                ]
            )
        }
    }

    @Test("Send names the intent, its arguments and the screen, and returns the screen or none when it closed")
    func send() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Send": .reply(["revision": 11, "screen": NavigationSamples.productList])
        ]) { service, client in
            let sent = try await client.send("onChangedFilter", arguments: ["text": "lamp"])
            service.answer("io.navhost.Navigation.Send", with: .reply(["revision": 12]))
            let closing = try await client.send(
                IntentMessage(name: "onTappedClose"),
                to: ScreenID("s2"),
                session: "kiosk"
            )

            #expect(sent.revision == 11)
            #expect(sent.screen?.state["value"]?["filter"] == "lamp")
            #expect(closing == SendResult(revision: 12, screen: nil))
            #expect(
                service.calls.map(\.parameters) == [
                    ["intent": "onChangedFilter", "arguments": ["text": "lamp"]],
                    ["session": "kiosk", "screen": "s2", "intent": "onTappedClose"],
                ]
            )
        }
    }

    @Test("Sessions, Routes and Plugins.List decode their lists")
    func lists() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Sessions": .reply(["sessions": ["main", "kiosk"]]),
            "io.navhost.Navigation.Routes": .reply(NavigationSamples.routesReply),
            "io.navhost.Plugins.List": .reply(NavigationSamples.pluginsReply),
        ]) { service, client in
            #expect(try await client.sessions() == ["main", "kiosk"])
            let routes = try await client.routes()
            #expect(routes.map(\.route) == ["home.main", "products.detail"])
            #expect(routes.last?.parameters == ["productID"])
            let plugins = try await client.plugins()
            #expect(plugins.map(\.state) == [.loaded, .quarantined, .loaded, .removed, .quarantined])
            #expect(plugins.first?.sdkVersion == "1.0.0")
            #expect(plugins[1].quarantine?.code == "sdkMismatch")
            #expect(
                plugins[2].removalRefused
                    == PluginInfo.RemovalRefused(neededBy: ["Home"], rootOf: [], message: "needed by Home")
            )
            #expect(plugins[3].removalRefused == nil)
        }
    }

    @Test("Results encode back to the reply's wire form")
    func wireForm() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Navigate": .reply(["revision": 5, "screen": NavigationSamples.productDetail])
        ]) { service, client in
            let pushed = try await client.navigate(to: "products.detail", parameters: ["productID": "p3"])

            #expect(
                try JSONValueEncoder().encode(pushed) == ["revision": 5, "screen": NavigationSamples.productDetail]
            )
            #expect(try JSONValueEncoder().encode(SendResult(revision: 3, screen: nil)) == ["revision": 3])
        }
    }
}
