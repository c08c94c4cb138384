import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

@Suite("Navigating the example plugins through the daemon")
struct DaemonNavigationTests {
    @Test("Home → Products → a product → its seller → edit → save → back, with states and revisions")
    func exampleFlow() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        // A Watch has a connection of its own: a "more" call holds back later calls on its connection.
        let watcher = try await NavigationClient.connect(to: daemon)
        let updates = WatchRecorder(watcher.watch())
        let snapshot = try await updates.next { $0["snapshot"] != nil }
        var revision = try #require(snapshot["snapshot"]?["revision"]?.intValue)

        // Home → Products: the list loads the shipped catalog.
        var reply = try await nav.call("Send", ["intent": "onTappedProducts"])
        #expect(try await nav.routes() == ["home.main", "products.list"])
        try await updates.next { $0["event"]?["state"]?["value"]?["totalCount"]?.intValue ?? 0 > 0 }
        let products = try #require(try await nav.topState()["value"]?["products"]?.arrayValue)
        #expect(products.count >= 5)

        // Filtering is a use case rule; the state says how many match.
        reply = try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        let engines = products.filter { $0["name"]?.stringValue?.lowercased().contains("engine") == true }.count
        #expect(engines > 0 && engines < products.count)
        #expect(reply["screen"]?["state"]?["value"]?["matchCount"] == .int(Int64(engines)))
        #expect(try #require(reply.revision) > revision)
        revision = try #require(reply.revision)

        // A product, then its seller's profile through a RouteRequest into another plugin.
        try await nav.call("Send", ["intent": "onTappedProduct", "arguments": ["productID": "p1"]])
        try await updates.next { $0["event"]?["state"]?["value"]?["seller"]?["id"] == "u1" }
        try await nav.call("Send", ["intent": "onTappedSeller"])
        #expect(try await nav.routes() == ["home.main", "products.list", "products.detail", "profile.user"])
        try await updates.next { $0["event"]?["state"]?["value"]?["name"] == "Ada Lovelace" }
        #expect(try await nav.topState()["value"]?["name"] == "Ada Lovelace")

        // Edit with a bad email: a validation error in state, nothing saved, still on the form.
        try await nav.call("Send", ["intent": "onTappedEditProfile"])
        try await updates.next { $0["event"]?["state"]?["value"]?["email"] != nil }
        try await nav.call("Send", ["intent": "onChangedEmail", "arguments": ["email": "not-an-email"]])
        reply = try await nav.call("Send", ["intent": "onTappedSave"])
        #expect(reply["screen"]?["state"]?["value"]?["emailError"] != nil)
        #expect(reply["screen"]?["state"]?["value"]?["emailError"] != .null)
        #expect(try await nav.routes().last == "profile.edit")

        // A good email saves and pops back to the profile, which shows the new address.
        try await nav.call("Send", ["intent": "onChangedEmail", "arguments": ["email": "ada@analytical.example"]])
        try await nav.call("Send", ["intent": "onTappedSave"])
        #expect(try await nav.routes() == ["home.main", "products.list", "products.detail", "profile.user"])
        try await updates.next { reply in
            reply["event"]?["state"]?["value"]?["email"] == "ada@analytical.example"
                || reply["event"]?["screen"]?["state"]?["value"]?["email"] == "ada@analytical.example"
                || reply["event"]?["kind"] == "popped"
        }
        #expect(try await nav.topState()["value"]?["email"] == "ada@analytical.example")

        // Back to the product.
        reply = try await nav.call("Pop")
        #expect(try await nav.routes().last == "products.detail")
        #expect(try #require(reply.revision) > revision)
        try await daemon.terminate()
    }

    @Test("A watcher gets a snapshot, then one event per revision, in order, the same as a second watcher")
    func twoWatchersSeeTheSameRevisions() async throws {
        let daemon = try await DaemonProcess.start()
        let driver = try await NavigationClient.connect(to: daemon)
        let first = try await NavigationClient.connect(to: daemon)
        let second = try await NavigationClient.connect(to: daemon)
        let firstUpdates = WatchRecorder(first.watch())
        let secondUpdates = WatchRecorder(second.watch())
        let start = try #require(try await firstUpdates.next()["snapshot"]?["revision"]?.intValue)
        _ = try await secondUpdates.next()

        try await driver.call("Navigate", ["route": "settings.main"])
        try await driver.call("Present", ["route": "products.list"])
        try await driver.call("Dismiss")
        let last = try #require(try await driver.snapshot()["revision"]?.intValue)

        var seen: [[Int64]] = [[], []]
        for (index, updates) in [firstUpdates, secondUpdates].enumerated() {
            while seen[index].last ?? start < last {
                let reply = try await updates.next()
                seen[index].append(try #require(reply["event"]?["revision"]?.intValue))
            }
        }
        #expect(seen[0] == Array((start + 1)...last), "one event per revision, none skipped")
        #expect(seen[0] == seen[1])
        try await daemon.terminate()
    }

    @Test("A watcher resuming from a held revision gets exactly the events it missed")
    func resumeFromRevision() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        let from = try #require(try await nav.snapshot()["revision"]?.intValue)
        try await nav.call("Navigate", ["route": "settings.main"])
        try await nav.call("Pop")
        let updates = WatchRecorder(nav.watch(resumeFrom: from))
        let first = try await updates.next()
        #expect(first["snapshot"] == nil, "no snapshot: the missed events are still held")
        #expect(first["event"]?["revision"]?.intValue == from + 1)
        #expect(first["event"]?["kind"] == "pushed")
        try await daemon.terminate()
    }

    @Test("Routes lists every example plugin's routes with their intents")
    func routesListing() async throws {
        let daemon = try await DaemonProcess.start()
        let nav = try await NavigationClient.connect(to: daemon)
        let routes = try #require(try await nav.call("Routes")["routes"]?.arrayValue)
        let byID = Dictionary(
            uniqueKeysWithValues: routes.compactMap { route in
                route["route"]?.stringValue.map { ($0, route) }
            }
        )
        #expect(
            Set(byID.keys).isSuperset(of: [
                "home.main", "products.list", "products.detail", "profile.user", "profile.edit", "settings.main",
            ])
        )
        #expect(byID["products.list"]?["intents"]?.arrayValue?.contains("onChangedFilter") == true)
        #expect(byID["products.detail"]?["feature"] == "Products")
        try await daemon.terminate()
    }
}
