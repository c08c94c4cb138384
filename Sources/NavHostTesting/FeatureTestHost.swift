internal import Logging
package import NavHostCore
public import NavHostKit
package import NavHostWire

/// Runs features headlessly on the real navigation core, for tests: start a route, send intents, and assert the
/// states and navigation events that follow — the way the seeds use a mock Router, but with every screen real.
///
/// ```swift
/// @Test @MainActor func retryLoadsTheProfile() async throws {
///     let host = try FeatureTestHost(features: [UserProfileFeature()], root: "profile.user", ["userID": "u1"])
///     try await host.settle()
///     #expect(try host.state(LoadingState<User>.self) == .loaded(.ada))
///     try await host.send("onTappedRetry")
///     #expect(host.takeEvents().map(\.kind) == [.stateChanged, .stateChanged])
/// }
/// ```
///
/// The host is a main-actor object: make it and use it on the main actor (a `@MainActor` test, as above). A test that
/// is not may still hold it across an `await`; the host is let go on the main actor wherever its last reference goes.
///
/// Time is a ``ManualClock`` (advance it with `await host.clock.advance(by: .seconds(1))`), storage an
/// ``InMemoryKeyValueStore``, and the log is discarded.
///
/// Its public API holds only NavHostKit's types and the kit's own, so it is part of the installed SDK: feature
/// packages outside this repository test with it exactly as the example plugins do.
@MainActor
public final class FeatureTestHost {
    // MARK: Public Properties

    /// The clock every feature's `HostServices` holds.
    public let clock: ManualClock
    /// The storage every feature's `HostServices` holds (one store, shared: tests can seed and inspect it).
    public let store: InMemoryKeyValueStore
    /// The random numbers every feature's `HostServices` draws: seeded with 0, the same every run.
    public let random: SeededRandomSource
    /// What every feature's `HostServices.optionalFeatures` says is loaded: the names of `features` unless the test
    /// said otherwise. Take a feature away, or bring it back, with `host.optionalFeatures.update(present:)`.
    public let optionalFeatures: OptionalFeatures

    /// The whole stack now, root first.
    public var stack: [TestScreen] { session.snapshot.stack.map(TestScreen.init) }

    /// The top screen.
    public var top: TestScreen { stack[stack.count - 1] }

    /// The route IDs of the stack, root first.
    public var routeIDs: [String] { session.routeIDs }

    /// The session's revision: one more for every change a front end would see.
    public var revision: UInt64 { session.revision }

    /// Every change since the host started or since the last ``takeEvents()``, oldest first.
    public var events: [Event] { sessionEvents.map(Event.init) }

    // MARK: Package Properties

    /// The features, as the daemon's catalog holds them.
    package let catalog: FeatureCatalog
    /// The session under test.
    package let session: NavigationSession
    /// The copy of the listed resources the features read, when the host made one; removed with the host.
    private let stagedResources: StagedResources?
    /// Every change since the host started or since the last ``takeSessionEvents()``, in the core's own form.
    package private(set) var sessionEvents: [SessionEvent] = []

    // MARK: Initialization

    /// Registers `features` and opens a session rooted at `root`.
    ///
    /// - Parameters:
    ///   - features: The features under test (and any they navigate into).
    ///   - root: The root route's ID.
    ///   - parameters: The root route's parameters.
    ///   - resourceDirectory: Where the plugin's shipped files are (`Resources`, in a package `navhost-plugin-tool
    ///     new` made). When the working directory, where `swift test` runs a package's tests, holds its `plugin.json`,
    ///     the features find only the files it lists as `resources`, as a staged plugin does; otherwise every file in
    ///     the folder.
    ///   - store: The key-value store to lend the features.
    ///   - optionalFeatures: The optional dependencies to report as loaded; by default every feature's name.
    ///   - intentTimeLimit: The intent time limit, measured on ``clock``: it only runs out when the test advances
    ///     the clock past it.
    public convenience init(
        features: [any FeatureModule],
        root: String,
        _ parameters: JSONObject = JSONObject(),
        resourceDirectory: String = ".",
        store: InMemoryKeyValueStore = InMemoryKeyValueStore(),
        optionalFeatures: Set<String>? = nil,
        intentTimeLimit: Duration? = .seconds(30)
    ) throws {
        try self.init(
            features: features,
            root: root,
            parameters,
            resourceDirectory: resourceDirectory,
            manifest: "plugin.json",
            store: store,
            optionalFeatures: optionalFeatures,
            intentTimeLimit: intentTimeLimit
        )
    }

    /// Registers `features` and opens a session rooted at `root`, the features finding only the resources that the
    /// manifest at `manifest` lists (every file in `resourceDirectory` when no file is there).
    ///
    /// - Parameters:
    ///   - features: The features under test (and any they navigate into).
    ///   - root: The root route's ID.
    ///   - parameters: The root route's parameters.
    ///   - resourceDirectory: Where the plugin's shipped files are.
    ///   - manifest: The plugin's `plugin.json`, relative to the working directory or absolute.
    ///   - store: The key-value store to lend the features.
    ///   - optionalFeatures: The optional dependencies to report as loaded; by default every feature's name.
    ///   - intentTimeLimit: The intent time limit, measured on ``clock``.
    /// - Throws: A `ResourceError` when the manifest is not one, or a file it lists cannot be read or copied; what
    ///   registering a feature throws.
    public init(
        features: [any FeatureModule],
        root: String,
        _ parameters: JSONObject = JSONObject(),
        resourceDirectory: String,
        manifest: String,
        store: InMemoryKeyValueStore = InMemoryKeyValueStore(),
        optionalFeatures: Set<String>? = nil,
        intentTimeLimit: Duration? = .seconds(30)
    ) throws {
        let staged = try StagedResources(listedIn: manifest, from: resourceDirectory)
        let resourceDirectory = staged?.path ?? resourceDirectory
        self.stagedResources = staged
        let clock = ManualClock()
        let random = SeededRandomSource(seed: 0)
        let present = OptionalFeatures(present: optionalFeatures ?? Set(features.map(\.name)))
        let logger = Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
        let catalog = FeatureCatalog()
        for feature in features {
            let services = HostServices(
                logger: .silent,
                clock: clock,
                store: store,
                resourceDirectory: resourceDirectory,
                random: random,
                optionalFeatures: present
            )
            try catalog.register(feature, services: services)
        }
        self.clock = clock
        self.random = random
        self.optionalFeatures = present
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
        session.observeChanges { [weak self] _, event in self?.sessionEvents.append(event) }
    }

    /// Goes on the main actor, wherever the test let the host go: the session it holds and the session's screens must
    /// be freed there (the core reads them back from the main actor only), and a test that is not `@MainActor` drops
    /// its host on another thread. Debug builds trap a session or screen freed elsewhere.
    isolated deinit {}

    // MARK: Public Functions

    /// Pushes `route` with `parameters`, as a front end's `Navigate` does.
    @discardableResult
    public func navigate(to route: String, _ parameters: JSONObject = JSONObject()) throws -> TestScreen {
        try session.navigate(to: RouteRequest(id: route, parameters: parameters))
        return top
    }

    /// Shows `route` in the modal layer, as a front end's `Present` does.
    @discardableResult
    public func present(_ route: String, _ parameters: JSONObject = JSONObject()) throws -> TestScreen {
        try session.present(RouteRequest(id: route, parameters: parameters))
        return top
    }

    /// Pops the top screen, as a front end's `Pop` does.
    public func pop() throws {
        try session.pop()
    }

    /// Closes the top modal screen, as a front end's `Dismiss` does.
    public func dismiss() throws {
        try session.dismiss()
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
    public func takeEvents() -> [Event] {
        takeSessionEvents().map(Event.init)
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

    // MARK: Package Functions

    /// Returns the events recorded so far, in the core's own form, and starts a new record.
    package func takeSessionEvents() -> [SessionEvent] {
        defer { sessionEvents.removeAll() }
        return sessionEvents
    }
}

/// ``FeatureTestHost/settle(timeout:)`` ran out of time: some screen's work is still waiting.
public struct SettleTimeout: Error, CustomStringConvertible {
    public var revision: UInt64
    public var description: String { "the session did not settle (still busy at revision \(revision))" }
}
