import Foundation
import IntegrationHarness
import NavHostClient
import NavHostJSON
import NavHostKit
import NavHostWire
import Testing

/// NavHostClient against the real `navhostd` process.
///
/// The tests in ``WithExamplePlugins`` need the example plugins staged by the build (`.build/<config>/plugins`) and a
/// daemon that loads them; they are skipped until the build stages them.
@Suite("NavHostClient against navhostd")
struct DaemonClientTests {
    /// Runs `body` with a fresh daemon (no plugins unless `plugins` names them, and `arguments` added to its command
    /// line) and a client connected to it.
    ///
    /// The daemon's state and log, and the empty plugin directory, are removed afterwards.
    static func withDaemon(
        plugins: String? = nil,
        arguments: [String] = [],
        _ body: (DaemonProcess, NavHostClient) async throws -> Void
    ) async throws {
        let noPlugins = try TestPaths.temporaryDirectory()
        let daemon = try await DaemonProcess.start(plugins: plugins ?? noPlugins, extraArguments: arguments)
        defer { removeFiles(of: daemon, and: noPlugins) }
        let client = try await NavHostClient.connect(socketPath: daemon.socketPath)
        do {
            try await body(daemon, client)
        } catch {
            await client.close()
            try await daemon.terminate()
            throw error
        }
        await client.close()
        try await daemon.terminate()
    }

    /// Removes the temporary directory a daemon kept its state and log in, and `directory`.
    static func removeFiles(of daemon: DaemonProcess, and directory: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: daemon.stateDirectory).deletingLastPathComponent())
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: - Without plugins

    @Test("Without plugins the daemon has no session, and says so with SessionNotFound")
    func noPlugins() async throws {
        try await Self.withDaemon { _, client in
            #expect(try await client.sessions() == [])
            #expect(try await client.plugins() == [])
            #expect(try await client.routes() == [])
            let error = try await #require(throws: NavHostClientError.self) { try await client.stack() }
            #expect(error.code == .sessionNotFound)
            #expect(error.parameters["session"] == "main")
            #expect(
                error.parameters["reason"]?.stringValue?.hasPrefix("declared by the configuration, but its root route")
                    == true,
                "main is the daemon's default session: declared, not open"
            )
        }
    }

    @Test("Route parameters and intent arguments reach the daemon as objects, not as invalid parameters")
    func parametersAreObjects() async throws {
        try await Self.withDaemon { _, client in
            let navigate = try await #require(throws: NavHostClientError.self) {
                try await client.navigate(to: "products.detail", parameters: ["productID": "p3"])
            }
            #expect(navigate.code == .sessionNotFound || navigate.code == .routeNotFound, "\(navigate)")
            let send = try await #require(throws: NavHostClientError.self) {
                try await client.send("onChangedFilter", arguments: ["text": "engine"])
            }
            #expect(send.code == .sessionNotFound, "\(send)")
        }
    }

    @Test("Watching a session that does not exist fails with SessionNotFound")
    func watchMissingSession() async throws {
        try await Self.withDaemon { _, client in
            let error = try await #require(throws: NavHostClientError.self) {
                for try await _ in try await client.watch(session: "kiosk") {}
            }
            #expect(error.code == .sessionNotFound)
        }
    }

    // MARK: - With the example plugins

    @Suite(
        "With the example plugins",
        .enabled(if: DaemonProcess.examplePluginsAreStaged, "needs the example plugins staged by the build")
    )
    struct WithExamplePlugins {
        @Test("Navigate, send and pop change the stack, and a watch sees every revision in order")
        func navigateSendPop() async throws {
            try await DaemonClientTests.withDaemon(plugins: DaemonProcess.examplePlugins) { _, client in
                let start = try await client.stack()
                #expect(start.stack.map(\.route.id) == ["home.main"])
                let watch = WatchRecorder(try await client.watch())
                try await watch.waitFor("the first snapshot") {
                    if case .snapshot(let snapshot, coalesced: false) = $0 {
                        return snapshot.revision == start.revision
                    }
                    return false
                }

                let pushed = try await client.navigate(to: "products.list")
                #expect(pushed.revision == start.revision + 1)
                #expect(pushed.screen.route.id == "products.list")
                try await watch.waitFor("the catalog to load") { update in
                    guard case .event(let event) = update, case .stateChanged(let id, let state) = event.change else {
                        return false
                    }
                    return id == pushed.screen.id && state["status"] == "loaded"
                }

                let sent = try await client.send("onChangedFilter", arguments: ["text": "engine"])
                let catalog = try #require(sent.screen?.state["value"])
                #expect(catalog["filter"] == "engine")
                #expect(catalog["matchCount"] == 2)
                #expect((catalog["totalCount"]?.intValue ?? 0) > 2)

                let popped = try await client.pop()
                #expect(popped.removed == [pushed.screen.id])
                try await watch.waitFor("the pop") {
                    $0 == .event(SessionEvent(revision: popped.revision, change: .popped([pushed.screen.id])))
                }

                var mirror = start
                for update in watch.received { mirror.apply(update) }
                let end = try await client.stack()
                #expect(mirror == end)
                let revisions = watch.received.compactMap { update -> UInt64? in
                    if case .event(let event) = update { return event.revision }
                    return nil
                }
                #expect(revisions == Array((start.revision + 1)...end.revision))
                watch.cancel()
            }
        }

        @Test("Refusals come back as typed errors with the daemon's parameters")
        func refusals() async throws {
            try await DaemonClientTests.withDaemon(plugins: DaemonProcess.examplePlugins) { _, client in
                let noRoute = try await #require(throws: NavHostClientError.self) {
                    try await client.navigate(to: "products.lst")
                }
                #expect(noRoute.code == .routeNotFound)
                #expect(noRoute.parameters == ["route": "products.lst"])
                let atRoot = try await #require(throws: NavHostClientError.self) { try await client.pop() }
                #expect(atRoot.code == .cannotPopRoot)
                let noIntent = try await #require(throws: NavHostClientError.self) {
                    try await client.send("onTappedNothing")
                }
                #expect(noIntent.code == .intentNotFound)
                #expect(
                    noIntent.parameters["intents"] == ["onTappedProducts", "onTappedProfile", "onTappedSettings"],
                    "the intents the screen takes, for a client to say what was meant"
                )
                #expect(noIntent.message.contains("it takes onTappedProducts, onTappedProfile, onTappedSettings"))
                let noModal = try await #require(throws: NavHostClientError.self) { try await client.dismiss() }
                #expect(noModal.code == .noModalPresented)
            }
        }

        @Test("Replace, present, dismiss and popTo move the stack as one change each")
        func otherMoves() async throws {
            try await DaemonClientTests.withDaemon(plugins: DaemonProcess.examplePlugins) { _, client in
                let replaced = try await client.replace(with: [
                    RouteRequest(id: "home.main"), RouteRequest(id: "products.list"),
                    RouteRequest(id: "products.detail", parameters: ["productID": "p3"]),
                ])
                #expect(replaced.stack.map(\.route.id) == ["home.main", "products.list", "products.detail"])
                #expect(replaced.stack.last?.route.parameters == ["productID": "p3"])

                let presented = try await client.present("settings.main")
                #expect(presented.screen.presentation == .modal)
                #expect(try await client.dismiss().removed == [presented.screen.id])

                let popped = try await client.popTo("products.list")
                #expect(popped.removed == [replaced.stack[2].id])
                #expect(try await client.popToRoot().removed == [replaced.stack[1].id])
                #expect(try await client.stack().stack.map(\.route.id) == ["home.main"])
            }
        }

        @Test("Routes and plugins list the four example features")
        func catalog() async throws {
            try await DaemonClientTests.withDaemon(plugins: DaemonProcess.examplePlugins) { _, client in
                let routes = try await client.routes()
                let list = try #require(routes.first { $0.route == "products.list" })
                #expect(list.feature == "Products")
                #expect(list.intents == ["onTappedRetry", "onChangedFilter", "onTappedProduct"])
                let plugins = try await client.plugins()
                #expect(Set(plugins.map(\.name)) == ["Home", "Products", "Settings", "UserProfile"])
                #expect(plugins.allSatisfy { $0.state == .loaded })
            }
        }

        @Test("watchSessions lists the open sessions, then each one opened and closed, in order")
        func watchSessions() async throws {
            try await DaemonClientTests.withDaemon(plugins: DaemonProcess.examplePlugins) { _, client in
                var updates = try await client.watchSessions().makeAsyncIterator()
                #expect(try await updates.next() == .sessions(["main"], coalesced: false))
                try await client.openSession(named: "passenger", root: "products.list")
                try await client.closeSession(named: "passenger")
                #expect(try await updates.next() == .event(SessionListEvent(.opened, "passenger")))
                #expect(try await updates.next() == .event(SessionListEvent(.closed, "passenger")))
            }
        }

        @Test("A daemon that stops ends its watches")
        func daemonStopEndsWatch() async throws {
            let daemon = try await DaemonProcess.start(plugins: DaemonProcess.examplePlugins)
            defer { DaemonClientTests.removeFiles(of: daemon, and: daemon.stateDirectory) }
            let client = try await NavHostClient.connect(socketPath: daemon.socketPath)
            let watch = WatchRecorder(try await client.watch())
            try await watch.waitFor("the first snapshot") {
                if case .snapshot = $0 { return true }
                return false
            }
            try await daemon.terminate()
            let ending = try await watch.waitForEnd()
            if let error = ending as? NavHostClientError {
                #expect([.serviceShuttingDown, .connectionClosed].contains(error.code), "\(error)")
            } else {
                #expect(ending == nil, "\(String(describing: ending))")
            }
            await client.close()
        }
    }
}
