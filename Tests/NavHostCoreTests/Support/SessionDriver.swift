import Logging
import NavHostKit
import NavHostWire

@testable import NavHostCore
@testable import NavHostPluginHost

/// Drives a session over a catalog the test did not build itself (one a ``PluginRegistry`` filled), recording its
/// events, the way `FeatureTestHost` drives features it registers.
@MainActor
final class SessionDriver {
    /// The session under test.
    let session: NavigationSession
    /// Every change since the driver started or since the last ``takeEvents()``, oldest first.
    private(set) var events: [SessionEvent] = []

    /// Opens a session rooted at `root` over `catalog`.
    init(catalog: FeatureCatalog, root: String, _ parameters: JSONObject = JSONObject()) throws {
        session = try NavigationSession(
            configuration: SessionConfiguration(root: RouteRequest(id: root, parameters: parameters)),
            catalog: catalog,
            logger: Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        )
        session.observeChanges { [weak self] _, event in self?.events.append(event) }
    }

    /// The route IDs of the stack, root first.
    var routeIDs: [String] { session.routeIDs }
    /// The session's revision.
    var revision: UInt64 { session.revision }
    /// The top screen's state.
    var state: JSONValue { (try? session.screenSnapshot().state) ?? .null }

    /// Sends intent `name` to the top screen, then waits until the session settles.
    func send(_ name: String, _ arguments: JSONObject = JSONObject()) async throws {
        try await session.send(IntentMessage(name: name, arguments: arguments))
        try await settle()
    }

    /// Returns the events recorded so far and starts a new record.
    func takeEvents() -> [SessionEvent] {
        defer { events.removeAll() }
        return events
    }

    /// Waits until no screen has work under way and no state change is left to report.
    ///
    /// The time limit only guards against a hang: the plugins' stores `fsync` every write, which a busy disk can
    /// make slow.
    func settle(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        var quietRounds = 0
        while quietRounds < 2 {
            let before = session.revision
            await Task { @MainActor in }.value
            quietRounds = session.isIdle && session.revision == before ? quietRounds + 1 : 0
            if ContinuousClock.now > deadline { throw SessionDidNotSettle(revision: session.revision) }
        }
    }

    /// Closes the session.
    func close() {
        session.close()
    }
}

/// ``SessionDriver/settle(timeout:)`` ran out of time.
struct SessionDidNotSettle: Error {
    var revision: UInt64
}

/// Opens `home.main` over `registry`'s catalog, taps Products, and returns the catalog screen's state: what a test
/// checks to show that the example plugins still serve after another plugin was quarantined.
@MainActor
func catalogStateThroughHome(_ registry: PluginRegistry) async throws -> JSONValue {
    let driver = try SessionDriver(catalog: registry.catalog, root: "home.main")
    defer { driver.close() }
    try await driver.settle()
    try await driver.send("onTappedProducts")
    guard driver.routeIDs == ["home.main", "products.list"] else { return .null }
    return driver.state
}
