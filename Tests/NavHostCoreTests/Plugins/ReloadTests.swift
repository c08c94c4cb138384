import Foundation
import InMemoryLogging
import Logging
import NavHostJSON
import NavHostKit
import NavHostTesting
import Synchronization
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

/// Replacing and removing a feature while sessions show its screens: in-process features for the session rules,
/// the staged example plugins for the registry's reload from a private copy.
@MainActor
@Suite("Reloading and unloading plugins")
struct ReloadTests {
    let main = SessionConfiguration(root: RouteRequest(id: "profile.user", parameters: ["userID": "root"]))
    let draft = RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"])

    func makeSessions() throws -> SessionRegistry {
        let catalog = FeatureCatalog()
        for feature: any FeatureModule in [ProfileFeature(), DraftFeature()] {
            try catalog.register(feature, services: Self.services)
        }
        return SessionRegistry(catalog: catalog, logger: .init(label: "test"))
    }

    static var services: HostServices { services(store: InMemoryKeyValueStore()) }

    static func services(store: any KeyValueStore) -> HostServices {
        HostServices(logger: .silent, clock: ContinuousClock(), store: store, resourceDirectory: ".")
    }

    @Test("A new build's screens are rebuilt in place, keep their restorable state, and run the new code")
    func rebuildInPlace() async throws {
        let sessions = try makeSessions()
        let session = try sessions.open(main)
        try session.navigate(to: draft)
        try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))
        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "hello"]), to: ScreenID("s2"))
        let before = session.snapshot

        try sessions.catalog.replace("Draft", with: ShoutingDraftFeature(), services: Self.services)
        let change = try #require(session.rebuildScreens(showing: ["draft.editor"]))

        #expect(change.revision == before.revision + 1, "one change for the whole swap")
        guard case .replaced(let stack) = change.event.change else {
            Issue.record("expected a replaced event, got \(change.event)")
            return
        }
        #expect(stack.map(\.id) == before.stack.map(\.id))
        #expect(stack.map(\.route) == before.stack.map(\.route))
        let rebuilt = try session.screenSnapshot(ScreenID("s2"))
        #expect(rebuilt.state["text"] == "hello", "the old build's restorable state reached the new one")
        #expect(rebuilt.state["build"] == 2)
        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "quiet"]), to: ScreenID("s2"))
        #expect(try session.screenSnapshot(ScreenID("s2")).state["text"] == "QUIET", "the new code answers")
        #expect(session.rebuildScreens(showing: ["nothing.here"]) == nil)
    }

    @Test("A reload says, per session, which screens started fresh: the new build could not read what they saved")
    func rebuildReportsScreensStartedFresh() async throws {
        let sessions = try makeSessions()
        let session = try sessions.open(main)
        let other = try sessions.open(SessionConfiguration(name: "kiosk", root: main.root))
        try session.navigate(to: draft)
        try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))
        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "hello"]), to: ScreenID("s2"))

        try sessions.catalog.replace("Draft", with: RenumberedDraftFeature(), services: Self.services)
        let lost = sessions.rebuildScreens(showing: ["draft.editor"])

        // Without persistence nothing is kept aside; the session that showed no draft lost nothing.
        #expect(lost == [LostScreens(session: "main", startedFresh: [ScreenID("s2")], removed: [], keptAside: nil)])
        #expect(try session.screenSnapshot(ScreenID("s2")).state["text"] == "", "it started fresh")
        #expect(session.snapshot.stack.count == 3, "the screens above it stay")
        #expect(other.snapshot.stack.count == 1)
    }

    @Test("An intent in flight when its screen is rebuilt is answered by the new build, not lost or refused")
    func intentInFlightIsDeliveredAgain() async throws {
        let sessions = try makeSessions()
        let session = try sessions.open(main)
        try session.navigate(to: draft)
        while !session.isIdle { await Task.yield() }  // onAppear done: the only task will be the intent
        let sending = Task {
            try await session.send(IntentMessage(name: "onTappedSaveSlowly", arguments: ["text": "late"]))
        }
        while session.isIdle { await Task.yield() }

        try sessions.catalog.replace("Draft", with: ShoutingDraftFeature(), services: Self.services)
        session.rebuildScreens(showing: ["draft.editor"])
        try await sending.value

        let rebuilt = try session.screenSnapshot(ScreenID("s2"))
        #expect(rebuilt.state["build"] == 2)
        #expect(rebuilt.state["text"] == "LATE", "the new build handled the intent the old one was still running")
    }

    @Test("An intent delivered again to its rebuilt screen goes there once the store write its old work began landed")
    func redeliveryWaitsForTheOldWorksWrite() async throws {
        let earlierStore = HeldStore()
        let catalog = FeatureCatalog()
        try catalog.register(LedgerFeature(), services: Self.services(store: earlierStore))
        let sessions = SessionRegistry(catalog: catalog, logger: .init(label: "test"))
        let session = try sessions.open(SessionConfiguration(root: RouteRequest(id: "ledger.main")))
        let sending = Task { try await session.send(IntentMessage(name: "onTappedSave")) }
        // The old build's save is under way, held.
        await earlierStore.writeBegan.wait()

        // The new build's store notes, as its write begins, whether the old build's write had landed.
        let laterStore = LandingWitnessStore(earlier: earlierStore)
        try catalog.replace("Ledger", with: LedgerFeature(), services: Self.services(store: laterStore))
        try #require(session.rebuildScreens(showing: ["ledger.main"]) != nil)
        // The main actor's turns in which a delivery that did not wait would reach the new build's store.
        for _ in 0..<100 where laterStore.earlierLandedAtEachWrite.isEmpty { await Task { @MainActor in }.value }
        earlierStore.release.open()
        try await sending.value

        // Before the wait, the intent reached the new build at once, and its write began with the old one's still
        // held: it could land after the reply.
        #expect(laterStore.earlierLandedAtEachWrite == [true], "the redelivered save began after the old one landed")
        #expect(try session.screenSnapshot(nil).state["saved"] == "written", "the new build answered")
    }

    @Test(
        "An intent waiting to be delivered again to its rebuilt screen until the old work's store write ends, a write that never does, does not hold the stop"
    )
    func redeliveryWaitDoesNotHoldTheStop() async throws {
        let earlierStore = HeldStore()
        let catalog = FeatureCatalog()
        try catalog.register(LedgerFeature(), services: Self.services(store: earlierStore))
        let logs = InMemoryLogHandler()
        let sessions = SessionRegistry(catalog: catalog, logger: Logger(label: "test") { _ in logs })
        let session = try sessions.open(SessionConfiguration(root: RouteRequest(id: "ledger.main")))
        let answered = Answered()
        let sending = Task {
            defer { answered.came = true }
            try await session.send(IntentMessage(name: "onTappedSave"))
        }
        // The old build's save is under way, held until the test ends: a write that does not end.
        await earlierStore.writeBegan.wait()
        defer { earlierStore.release.open() }
        let laterStore = InMemoryKeyValueStore()
        try catalog.replace("Ledger", with: LedgerFeature(), services: Self.services(store: laterStore))
        try #require(session.rebuildScreens(showing: ["ledger.main"]) != nil)
        // The intent waits for the old write before its delivery to the rebuilt screen, as the log says.
        let waits = {
            logs.entries.contains {
                $0.message.description.hasPrefix("Waiting for the store writes")
                    && $0.metadata["navhost.waiting"] == "its delivery to the rebuilt screen"
            }
        }
        var deadline = ContinuousClock.now + .seconds(30)
        while !waits() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(waits(), "the delivery to the rebuilt screen does not wait through the registry")

        sessions.shutDown()
        // Before, that wait was on the task alone, which the stop did not end: the call, and with it the daemon's stop
        // (which waits for its calls), waited for the write.
        deadline = ContinuousClock.now + .seconds(30)
        while !answered.came && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        try #require(answered.came, "the stop did not end the wait")
        // The stop closed the rebuilt screen too: the intent is delivered nowhere.
        let error = await #expect(throws: NavigationError.self) { try await sending.value }
        #expect(error?.code == .screenClosed, "\(String(describing: error))")
        #expect(try await laterStore.value(forKey: "saved") == nil, "not delivered to the rebuilt screen")
    }

    @Test("Removing a feature pops its lowest screen and everything above it, as one change")
    func removalPops() throws {
        let sessions = try makeSessions()
        let session = try sessions.open(main)
        try session.navigate(to: draft)
        try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))
        let revision = session.revision

        sessions.catalog.unregister("Draft")
        let change = try #require(session.removeScreens(showing: ["draft.editor"]))

        #expect(change.event.change == .popped([ScreenID("s3"), ScreenID("s2")]))
        #expect(change.revision == revision + 1)
        #expect(session.routeIDs == ["profile.user"])
    }

    @Test("Removing the feature of the root restarts the session at its configured root")
    func removingTheRootRestarts() throws {
        let sessions = try makeSessions()
        let session = try sessions.open(main)
        try session.replace(with: [draft, RouteRequest(id: "profile.user", parameters: ["userID": "u2"])])

        sessions.catalog.unregister("Draft")
        let change = try #require(session.removeScreens(showing: ["draft.editor"]))

        guard case .replaced(let stack) = change.event.change else {
            Issue.record("expected a replaced event, got \(change.event)")
            return
        }
        #expect(stack.map(\.route) == [main.root])
    }

    @Test("Reloading a real plugin loads a private copy, and every session's screens of it are rebuilt in place")
    func reloadRealPlugin() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)
        let sessions = SessionRegistry(catalog: registry.catalog, logger: .init(label: "test"))
        let control = PluginControl(registry: registry, sessions: sessions)
        let session = try sessions.open(SessionConfiguration(root: RouteRequest(id: "home.main")))
        try session.navigate(to: RouteRequest(id: "products.list"))
        let before = session.snapshot
        let oldCoordinator = registry.catalog.entry(named: "Products")?.coordinator

        let replacement = try control.reload("Products")

        #expect(replacement.status.libraryPath == "\(workspace.state)/plugin-images/Products-2.so")
        #expect(registry.status(named: "Products")?.isLoaded == true)
        #expect(registry.status(named: "Products")?.lastReloadFailure == nil)
        #expect(registry.statuses.filter { $0.name == "Products" }.count == 1)
        #expect(registry.catalog.entry(named: "Products")?.coordinator !== oldCoordinator)
        #expect(session.snapshot.stack.map(\.id) == before.stack.map(\.id))
        #expect(session.revision == before.revision + 1)
        #expect(try control.reload("Products").status.libraryPath?.hasSuffix("/Products-3.so") == true)
    }

    @Test("A reloaded plugin gets the store its earlier build had: one writer per file")
    func reloadKeepsTheStore() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        var made: [String] = []
        let registry = PluginRegistry(
            catalog: FeatureCatalog(),
            stateDirectory: workspace.state,
            logger: .init(label: "test"),
            makeStore: { feature in
                made.append(feature)
                return InMemoryKeyValueStore()
            }
        )
        registry.loadAll(from: workspace.plugins)
        let control = PluginControl(
            registry: registry,
            sessions: SessionRegistry(catalog: registry.catalog, logger: .init(label: "test"))
        )

        _ = try control.reload("Settings")
        _ = try control.reload("Settings")

        // An old build's intent still writing after the reload would otherwise rewrite the file from its own copy.
        #expect(made.filter { $0 == "Settings" }.count == 1, "\(made)")
    }

    @Test("A broken new build is refused: the old version keeps serving and the reason is kept")
    func brokenBuildRefused() throws {
        let workspace = try PluginWorkspace()
        defer { workspace.remove() }
        try FileManager.default.removeItem(atPath: "\(workspace.plugins)/Settings")
        let folder = try workspace.addStaged("Settings") { _ in }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)
        let sessions = SessionRegistry(catalog: registry.catalog, logger: .init(label: "test"))
        let control = PluginControl(registry: registry, sessions: sessions)
        let session = try sessions.open(SessionConfiguration(root: RouteRequest(id: "home.main")))
        try session.navigate(to: RouteRequest(id: "settings.main"))
        let revision = session.revision
        var manifest = try PluginWorkspace.stagedManifest("Settings")
        manifest.sha256 = String(repeating: "0", count: 64)
        try Data(try manifest.jsonBytes()).write(to: URL(fileURLWithPath: "\(folder)/manifest.json"))

        #expect(throws: PluginRegistry.ChangeError.self) { try control.reload("Settings") }

        let status = try #require(registry.status(named: "Settings"))
        #expect(status.isLoaded)
        #expect(status.lastReloadFailure?.code == .checksumMismatch)
        #expect(registry.catalog.owner(ofRoute: "settings.main") == "Settings")
        #expect(session.revision == revision, "no session changed")
        #expect(throws: PluginRegistry.ChangeError.notLoaded("Nope")) { try control.reload("Nope") }
    }

    @Test("Unloading a plugin pops its screens; one others depend on, or serving a configured root, stays")
    func unloadRealPlugin() async throws {
        let workspace = try PluginWorkspace(linking: ["Products", "Settings", "UserProfile"])
        defer { workspace.remove() }
        try workspace.addStaged("Home") { manifest in
            for index in manifest.dependencies.indices where manifest.dependencies[index].name == "Products" {
                manifest.dependencies[index].isOptional = false
            }
        }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)
        let sessions = SessionRegistry(catalog: registry.catalog, logger: .init(label: "test"))
        let control = PluginControl(registry: registry, sessions: sessions)
        let session = try sessions.open(SessionConfiguration(root: RouteRequest(id: "settings.main")))
        try session.navigate(to: RouteRequest(id: "home.main"))
        try session.navigate(to: RouteRequest(id: "settings.main"))

        await #expect(throws: PluginRegistry.ChangeError.self, "this Home cannot work without Products") {
            try await control.unload("Products")
        }
        try await control.unload("Home")

        #expect(session.routeIDs == ["settings.main"])
        #expect(registry.catalog.owner(ofRoute: "home.main") == nil)
        #expect(registry.status(named: "Home")?.isLoaded != true)
        await #expect(throws: PluginRegistry.ChangeError.self) { try await control.unload("Settings") }
        #expect(registry.catalog.owner(ofRoute: "settings.main") == "Settings")
    }
}

/// A store in memory that notes, as each write begins, whether the `earlier` store's write had landed: whether a new
/// build's work began only after the old build's.
private final class LandingWitnessStore: KeyValueStore {
    private let base = InMemoryKeyValueStore()
    private let earlier: HeldStore
    private let witnessed = Mutex<[Bool]>([])

    init(earlier: HeldStore) {
        self.earlier = earlier
    }

    /// For each write begun, whether the earlier store's write had landed then.
    var earlierLandedAtEachWrite: [Bool] { witnessed.withLock { $0 } }

    func value(forKey key: String) async throws -> JSONValue? {
        try await base.value(forKey: key)
    }

    func setValue(_ value: JSONValue, forKey key: String) async throws {
        let earlierLanded = earlier.hasLanded
        witnessed.withLock { $0.append(earlierLanded) }
        try await base.setValue(value, forKey: key)
    }

    func removeValue(forKey key: String) async throws {
        try await base.removeValue(forKey: key)
    }
}

/// Whether a call was answered, set by the task that made it.
@MainActor
private final class Answered {
    var came = false
}
