import Foundation
import NavHostKit
import NavHostStorage
import Testing

@testable import NavHostCore

/// Screens, sessions and the registry are reached back to by the closures, tasks and handles that may outlive them
/// through a `Backlink`, not a weak reference: once closed and let go, each must still be freed (no cycle through
/// what holds its backlink), and what still holds its backlink then finds it gone.
@MainActor
@Suite("Closed screens, sessions and registries are freed")
struct BacklinkReleaseTests {
    @Test("A popped screen whose intent ran, a closed session with a watcher, and their registry are freed")
    func closedObjectsAreFreed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-backlink-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Weak here, in the test only: the daemon holds none of these weakly.
        weak var registry: SessionRegistry?
        weak var session: NavigationSession?
        weak var screen: Screen?
        var backlink: Backlink<Screen>?
        do {
            let held = SessionRegistry(
                catalog: try FeatureCatalog.holding([CatalogFeature()]),
                persistence: SessionPersistence(directory: directory),
                logger: .silent
            )
            registry = held
            let opened = try held.open(SessionConfiguration(name: "main", root: RouteRequest(id: "catalog.list")))
            session = opened
            let watcher = opened.watch()
            // The list's intent pushes the detail; the detail's own intent then pops it (its task, its clock, its
            // observation and its `Router` each hold the screen's backlink).
            try await opened.send(IntentMessage(name: "onTappedItem", arguments: ["itemID": "i1"]))
            screen = opened.screens.last
            backlink = screen?.backlink
            #expect(screen?.route.id == "catalog.detail")
            try await opened.send(IntentMessage(name: "onTappedBack"))
            #expect(opened.routeIDs == ["catalog.list"])
            try await held.commit(opened)
            _ = held.closeSession(named: "main")
            watcher.cancel()
        }
        try await waitUntil { screen == nil && session == nil && registry == nil }
        #expect(screen == nil, "the popped screen is freed")
        #expect(session == nil, "the closed session is freed")
        #expect(registry == nil, "the registry let go is freed")
        #expect(backlink != nil && backlink?.owner == nil, "a backlink kept past its screen finds it gone")
    }

    #if DEBUG
        /// The rule that keeps `unowned(unsafe)` safe (Backlink.swift) is checked by every test: an owner freed off the
        /// main actor traps in a debug build, rather than race the main-actor tasks that read its backlink.
        @Test("A registry let go off the main actor traps (debug builds)")
        func registryLetGoOffTheMainActorTraps() async {
            await #expect(processExitsWith: .failure) {
                await Task.detached {
                    // Made on the main actor; its only reference goes at the end of this task, on a pool thread.
                    let registry = await MainActor.run { SessionRegistry(catalog: FeatureCatalog(), logger: .silent) }
                    _ = registry
                }.value
            }
        }
    #endif

    /// Gives other tasks of the main actor turns until `condition` holds (a deadline, not a count of turns: the last
    /// write waits for the disk).
    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { return }
            await Task.yield()
        }
    }
}
