public import Clocks
public import Logging
public import NavHostCore
public import NavHostKit

/// Runs features headlessly on the real navigation core, for tests: start a route, send intents, and assert the
/// states and navigation events that follow — the way the seeds use a mock Router, but with every screen real.
///
/// ```swift
/// @Test @MainActor func retryLoadsTheProfile() async throws {
///     let host = try FeatureTestHost(features: [UserProfileFeature()], root: "profile.user", ["userID": "u1"])
///     await host.settle()
///     #expect(try host.state(LoadingState<User>.self) == .loaded(.ada))
///     try await host.send("onTappedRetry")
///     #expect(host.takeEvents().map(\.kind) == [.stateChanged, .stateChanged])
/// }
/// ```
///
/// Time is a `TestClock` (advance it with `await host.clock.advance(by: .seconds(1))`), storage an
/// ``InMemoryKeyValueStore``, and the log is kept in memory for assertions.
@MainActor
public final class FeatureTestHost {
    // MARK: Public Properties

    /// The clock every feature's `HostServices` holds.
    public let clock: TestClock<Duration>
    /// The storage every feature's `HostServices` holds (one store, shared: tests can seed and inspect it).
    public let store: InMemoryKeyValueStore
    /// The features, as the daemon's catalog holds them.
    public let catalog: FeatureCatalog
    /// The session under test.
    public let session: NavigationSession
    /// Every change since the host started or since the last ``takeEvents()``, oldest first.
    public private(set) var events: [SessionEvent] = []

    /// The whole stack now, root first.
    public var stack: [ScreenSnapshot] { session.snapshot.stack }

    /// The top screen.
    public var top: ScreenSnapshot { stack[stack.count - 1] }

    /// The route IDs of the stack, root first.
    public var routeIDs: [String] { session.routeIDs }

    /// The session's revision.
    public var revision: UInt64 { session.revision }

    // MARK: Initialization

    /// Registers `features` and opens a session rooted at `root`.
    ///
    /// - Parameters:
    ///   - features: The features under test (and any they navigate into).
    ///   - root: The root route's ID.
    ///   - parameters: The root route's parameters.
    ///   - resourceDirectory: What `HostServices.resourceDirectory` says; point it at the plugin's shipped files.
    ///   - store: The key-value store to lend the features.
    ///   - intentTimeLimit: The intent time limit, measured on ``clock``: it only runs out when the test advances
    ///     the clock past it.
    public init(
        features: [any FeatureModule],
        root: String,
        _ parameters: JSONObject = JSONObject(),
        resourceDirectory: String = ".",
        store: InMemoryKeyValueStore = InMemoryKeyValueStore(),
        intentTimeLimit: Duration? = .seconds(30)
    ) throws {
        let clock = TestClock<Duration>()
        let logger = Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        let catalog = FeatureCatalog()
        for feature in features {
            var featureLogger = logger
            featureLogger[metadataKey: "navhost.plugin"] = .string(feature.name)
            let services = HostServices(
                logger: featureLogger,
                clock: clock,
                store: store,
                resourceDirectory: resourceDirectory
            )
            try catalog.register(feature, services: services)
        }
        self.clock = clock
        self.store = store
        self.catalog = catalog
        var options = SessionOptions()
        options.intentTimeLimit = intentTimeLimit
        options.clock = clock
        self.session = try NavigationSession(
            configuration: SessionConfiguration(root: RouteRequest(id: root, parameters: parameters)),
            catalog: catalog,
            options: options,
            logger: logger
        )
        session.observeChanges { [weak self] _, event in self?.events.append(event) }
    }

    // MARK: Public Functions

    /// Pushes `route` with `parameters`.
    @discardableResult
    public func navigate(to route: String, _ parameters: JSONObject = JSONObject()) throws -> ScreenSnapshot {
        try session.navigate(to: RouteRequest(id: route, parameters: parameters))
        return top
    }

    /// Sends the intent `name` with `arguments` to `screen` (the top one by default) and waits until it is handled.
    public func send(_ name: String, _ arguments: JSONObject = JSONObject(), to screen: ScreenID? = nil) async throws {
        try await session.send(IntentMessage(name: name, arguments: arguments), to: screen)
    }

    /// Decodes the state of `screen` (the top one by default) as `type`.
    public func state<T: Decodable>(_ type: T.Type, of screen: ScreenID? = nil) throws -> T {
        try JSONValueDecoder().decode(type, from: session.screenSnapshot(screen).state)
    }

    /// Returns the events recorded so far and starts a new record.
    public func takeEvents() -> [SessionEvent] {
        defer { events.removeAll() }
        return events
    }

    /// Waits until every screen's work has finished and every state change has been reported.
    ///
    /// Work that waits on the test clock or on the test itself never finishes by itself: after `timeout` of real
    /// time, `settle` gives up and throws.
    public func settle(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        var quietRounds = 0
        while quietRounds < 2 {
            let before = session.revision
            // Every job queued on the main actor before this one runs first, state checks included.
            await Task { @MainActor in }.value
            quietRounds = session.isIdle && session.revision == before ? quietRounds + 1 : 0
            if ContinuousClock.now > deadline { throw SettleTimeout(revision: session.revision) }
        }
    }

    /// Waits until the session reaches `revision` (or later).
    public func waitForRevision(_ revision: UInt64, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while session.revision < revision {
            await Task { @MainActor in }.value
            if ContinuousClock.now > deadline { throw SettleTimeout(revision: session.revision) }
        }
    }
}

/// ``FeatureTestHost/settle(timeout:)`` ran out of time: some screen's work is still waiting.
public struct SettleTimeout: Error, CustomStringConvertible {
    public var revision: UInt64
    public var description: String { "the session did not settle (still busy at revision \(revision))" }
}

// MARK: - Event kinds

extension SessionEvent {
    /// The kind of change, without its payload, for compact assertions.
    public enum Kind: String, Sendable, Hashable {
        case pushed, popped, replaced, stateChanged, errorChanged
    }

    /// The kind of change.
    public var kind: Kind {
        switch change {
        case .pushed: return .pushed
        case .popped: return .popped
        case .replaced: return .replaced
        case .stateChanged: return .stateChanged
        case .errorChanged: return .errorChanged
        }
    }
}
