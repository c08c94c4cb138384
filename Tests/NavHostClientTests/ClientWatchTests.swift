import IntegrationHarness
import NavHostClient
import NavHostJSON
import NavHostKit
import NavHostWire
import Testing

/// `watch(session:resumeFrom:)` against a scripted stream of Watch replies.
@Suite("NavHostClient watch")
struct ClientWatchTests {
    private static let updates: [JSONObject] = [
        ["snapshot": NavigationSamples.snapshot(revision: 4, stack: [NavigationSamples.home])],
        ["event": ["revision": 5, "kind": "pushed", "screen": NavigationSamples.productList]],
        ["event": ["revision": 6, "kind": "stateChanged", "screenID": "s2", "state": ["status": "loading"]]],
        ["snapshot": NavigationSamples.snapshot(revision: 9, stack: [NavigationSamples.home]), "coalesced": true],
        ["event": ["revision": 10, "kind": "popped", "removed": []]],
    ]

    @Test("A watch yields the snapshot, the events and coalesced snapshots in order, then ends with the final reply")
    func updatesInOrder() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Watch": .stream(Self.updates, end: .finalReply)
        ]) { service, client in
            var received: [NavHostWatch.Update] = []
            for try await update in try await client.watch(session: "kiosk", resumeFrom: 3) {
                received.append(update)
            }

            try #require(received.count == 5)
            guard case .snapshot(let first, coalesced: false) = received[0] else {
                Issue.record("the first update is not a plain snapshot: \(received[0])")
                return
            }
            #expect(first.revision == 4)
            guard case .event(let pushed) = received[1], case .pushed(let screen) = pushed.change else {
                Issue.record("the second update is not a push: \(received[1])")
                return
            }
            #expect(screen.route.id == "products.list")
            #expect(
                received[2]
                    == .event(SessionEvent(revision: 6, change: .stateChanged(ScreenID("s2"), ["status": "loading"])))
            )
            guard case .snapshot(let coalesced, coalesced: true) = received[3] else {
                Issue.record("the fourth update is not a coalesced snapshot: \(received[3])")
                return
            }
            #expect(coalesced.revision == 9)
            #expect(received[4] == .event(SessionEvent(revision: 10, change: .popped([]))))
            #expect(
                service.calls.last
                    == .init(method: "io.navhost.Navigation.Watch", parameters: ["session": "kiosk", "resumeFrom": 3])
            )
        }
    }

    @Test("An error reply that ends a watch is thrown with its name")
    func errorEnding() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Watch": .stream(
                [Self.updates[0]],
                end: .error("io.navhost.Navigation.WatcherTooSlow")
            )
        ]) { _, client in
            var count = 0
            let error = try await #require(throws: NavHostClientError.self) {
                for try await _ in try await client.watch() { count += 1 }
            }
            #expect(count == 1)
            #expect(error.code == .watcherTooSlow)
            #expect(error.errorName == "io.navhost.Navigation.WatcherTooSlow")
        }
    }

    @Test("Cancelling the task that iterates a watch ends it without an error")
    func cancellation() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Watch": .stream([Self.updates[0]], end: .never)
        ]) { _, client in
            let watch = try await client.watch()
            let (firstSeen, seen) = AsyncStream.makeStream(of: Void.self)
            let iteration = Task {
                var count = 0
                for try await _ in watch {
                    count += 1
                    seen.yield()
                }
                return count
            }
            for await _ in firstSeen { break }
            iteration.cancel()
            let count = try await withTimeout(.seconds(10), "the watch to end") { try await iteration.value }
            #expect(count == 1)
        }
    }

    @Test("A watch has its own connection: the client answers other calls while it streams")
    func ownConnection() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Watch": .stream([Self.updates[0]], end: .never),
            "io.navhost.Navigation.Sessions": .reply(["sessions": ["main"]]),
        ]) { _, client in
            let watch = try await client.watch()
            var iterator = watch.makeAsyncIterator()
            _ = try await iterator.next()

            let sessions = try await withTimeout(.seconds(10), "Sessions while a watch streams") {
                try await client.sessions()
            }

            #expect(sessions == ["main"])
            await watch.close()
            #expect(try await iterator.next() == nil)
        }
    }

    @Test("A reply with neither a snapshot nor an event is a protocol violation")
    func malformedUpdate() async throws {
        try await withScriptedService([
            "io.navhost.Navigation.Watch": .stream([["revision": 3]], end: .finalReply)
        ]) { _, client in
            let error = try await #require(throws: NavHostClientError.self) {
                for try await _ in try await client.watch() {}
            }
            #expect(error.code == .protocolViolation)
        }
    }
}
