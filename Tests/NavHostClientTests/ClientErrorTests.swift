import Foundation
import NavHostClient
import NavHostJSON
import NavHostTestSupport
import Testing

/// How failures reach the caller: error replies keep their Varlink name and parameters, and everything else gets a
/// code of its own.
@Suite("NavHostClient errors")
struct ClientErrorTests {
    @Test(
        "An error reply keeps its Varlink name and parameters and gets the matching code",
        arguments: [
            ("io.navhost.Navigation.RouteNotFound", ["route": "products.lst"], NavHostClientError.Code.routeNotFound),
            ("io.navhost.Navigation.IntentFailed", ["screen": "s2", "intent": "filterByName"], .intentFailed),
            ("io.navhost.Navigation.CannotPopRoot", [:], .cannotPopRoot),
            ("io.navhost.Navigation.WatcherTooSlow", [:], .watcherTooSlow),
            ("org.varlink.service.PermissionDenied", [:], .permissionDenied),
            ("org.varlink.service.InvalidParameter", ["parameter": "routes[0].route"], .invalidParameter),
            ("io.navhost.varlink.InternalError", [:], .internalError),
            ("io.navhost.Navigation.SomethingNew", ["detail": 1], .otherErrorReply),
            ("org.example.RouteNotFound", ["route": "x"], .otherErrorReply),
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
        let path = "\(try TestPaths.temporaryDirectory())/missing.sock"
        let error = try await #require(throws: NavHostClientError.self) {
            try await NavHostClient.connect(socketPath: path)
        }
        #expect(error.code == .daemonUnreachable)
        #expect(error.message == "no socket at \(path) (is navhostd running?)")
    }

    @Test("A socket nobody listens on is daemonUnreachable: connection refused")
    func refusedConnection() async throws {
        let path = TestPaths.socketPath()
        let descriptor = try boundUnlistenedSocket(at: path)
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

    @Test("A call under way when the daemon goes away fails with connectionClosed")
    func connectionClosed() async throws {
        let service = try await ScriptedNavigationService.start()
        let client = try await NavHostClient.connect(socketPath: service.socketPath)
        await service.stop()
        let error = try await #require(throws: NavHostClientError.self) { try await client.stack() }
        #expect(error.code == .connectionClosed || error.code == .protocolViolation)
        await client.close()
    }
}
