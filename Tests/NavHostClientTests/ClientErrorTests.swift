import Foundation
import IntegrationHarness
import NavHostClient
import NavHostJSON
import Testing

/// How failures reach the caller: error replies keep their Varlink name and parameters, and everything else gets a
/// code of its own.
@Suite("NavHostClient errors")
struct ClientErrorTests {
    @Test(
        "An error reply keeps its Varlink name and parameters and gets the code its interface declares",
        arguments: [
            ("io.navhost.Navigation.RouteNotFound", ["route": "products.lst"], NavHostClientError.Code.routeNotFound),
            ("io.navhost.Navigation.IntentFailed", ["screen": "s2", "intent": "onChangedFilter"], .intentFailed),
            ("io.navhost.Navigation.CannotPopRoot", [:], .cannotPopRoot),
            ("io.navhost.Navigation.WatcherTooSlow", [:], .watcherTooSlow),
            ("org.varlink.service.PermissionDenied", [:], .permissionDenied),
            ("org.varlink.service.InvalidParameter", ["parameter": "routes[0].route"], .invalidParameter),
            ("io.navhost.varlink.InternalError", [:], .internalError),
            ("io.navhost.Navigation.SomethingNew", ["detail": 1], .otherErrorReply),
            ("org.example.RouteNotFound", ["route": "x"], .otherErrorReply),
            ("io.navhost.Plugins.PluginNotFound", ["name": "Nope"], .pluginNotFound),
            ("io.navhost.Plugins.WatcherTooSlow", [:], .watcherTooSlow),
            ("io.navhost.Plugins.RouteNotFound", ["route": "x"], .otherErrorReply),
            ("io.navhost.Navigation.PluginRefused", ["code": "x", "message": "y"], .otherErrorReply),
            ("org.varlink.service.RouteNotFound", ["route": "x"], .otherErrorReply),
        ] as [(String, JSONObject, NavHostClientError.Code)]
    )
    func errorReply(name: String, parameters: JSONObject, code: NavHostClientError.Code) async throws {
        try await withScriptedService(["io.navhost.Navigation.Pop": .error(name, parameters)]) { _, client in
            let error = try await #require(throws: NavHostClientError.self) { try await client.pop() }
            #expect(error.code == code)
            #expect(error.errorName == name)
            #expect(error.parameters == parameters)
            #expect(error.description.hasPrefix(name))
        }
    }

    @Test("A route that is not found is described with its route, on one line")
    func description() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Navigate": .error("io.navhost.Navigation.RouteNotFound", ["route": "products.lst"])
        ]) { _, client in
            let error = try await #require(throws: NavHostClientError.self) {
                try await client.navigate(to: "products.lst")
            }
            #expect(
                error.description
                    == #"io.navhost.Navigation.RouteNotFound {"route":"products.lst"}: no loaded feature offers route "products.lst""#
            )
        }
    }

    @Test("A reply that does not match the interface is a protocol violation")
    func malformedReply() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Stack": .reply(["snapshot": ["session": "main", "revision": "four", "stack": []]])
        ]) { _, client in
            let error = try await #require(throws: NavHostClientError.self) { try await client.stack() }
            #expect(error.code == .protocolViolation)
            #expect(error.errorName == nil)
            #expect(error.message.contains("io.navhost.Navigation.Stack"))
        }
    }

    @Test("A socket path with no socket is daemonUnreachable")
    func missingSocket() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/missing.sock"
        let error = try await #require(throws: NavHostClientError.self) {
            try await NavHostClient.connect(socketPath: path)
        }
        #expect(error.code == .daemonUnreachable)
        #expect(error.message == "no socket at \(path) (is navhostd running?)")
    }

    @Test("A socket nobody listens on is daemonUnreachable: connection refused")
    func refusedConnection() async throws {
        let path = TestPaths.socketPath()
        let descriptor = try boundUnixSocket(at: path)
        defer {
            close(descriptor)
            unlink(path)
        }
        let error = try await #require(throws: NavHostClientError.self) {
            try await NavHostClient.connect(socketPath: path)
        }
        #expect(error.code == .daemonUnreachable)
        #expect(error.message.contains("connection refused"))
    }

    @Test("A daemon that goes away before it answers fails the call with connectionClosed")
    func connectionClosed() async throws {
        let server = try DroppingVarlinkServer(replies: [])
        defer { server.stop() }
        let client = try await NavHostClient.connect(socketPath: server.socketPath)
        let error = try await #require(throws: NavHostClientError.self) { try await client.stack() }
        #expect(error.code == .connectionClosed)
        #expect(error.message == "the daemon closed the connection before it answered io.navhost.Navigation.Stack")
        await client.close()
    }

    @Test("A watch whose daemon goes away mid-stream throws connectionClosed after the updates it got")
    func watchConnectionClosed() async throws {
        let server = try DroppingVarlinkServer(replies: [
            ["snapshot": NavigationSamples.snapshot(revision: 4, stack: [NavigationSamples.home])]
        ])
        defer { server.stop() }
        let client = try await NavHostClient.connect(socketPath: server.socketPath)
        var count = 0
        let error = try await #require(throws: NavHostClientError.self) {
            for try await _ in try await client.watch() { count += 1 }
        }
        #expect(count == 1)
        #expect(error.code == .connectionClosed)
        await client.close()
    }
}
