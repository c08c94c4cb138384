import NavHostJSON
import Testing

@testable import NavHostInspector

/// The hub alone: what a page receives, and what it keeps.
@Suite("The inspector's hub")
struct InspectorHubTests {
    static func entry(_ revision: Int64) -> InspectorTimeline.Entry {
        InspectorTimeline.Entry(revision: revision, kind: .patch, change: ["revision": .int(revision)])
    }

    @Test("A session's timeline in the hub stays within its capacity, and a new page's snapshot holds only that")
    func timelineBounded() async throws {
        let hub = InspectorHub(timelineCapacity: 3)
        #expect(await hub.startFollowing("main"))
        #expect(await !hub.startFollowing("main"))
        for revision in Int64(1)...10 {
            await hub.sessionMoved("main", document: ["revision": .int(revision)], entry: Self.entry(revision))
        }
        #expect(await hub.timeline(of: "main")?.entries.map(\.revision) == [8, 9, 10])

        let (_, messages) = await hub.subscribe()
        var iterator = messages.makeAsyncIterator()
        let snapshot = try JSONParser().parse(try #require(await iterator.next()))
        #expect(snapshot["type"] == "snapshot")
        let timeline = snapshot["sessions"]?["main"]?["timeline"]?.arrayValue ?? []
        #expect(timeline.map { $0["revision"]?.intValue } == [8, 9, 10])
        #expect(snapshot["sessions"]?["main"]?["document"]?["revision"] == 10)
    }

    @Test("A page that falls further behind than its backlog is dropped: its messages end")
    func slowPageDropped() async throws {
        let hub = InspectorHub(timelineCapacity: 10, subscriberBacklog: 4)
        _ = await hub.startFollowing("main")
        let (_, messages) = await hub.subscribe()
        for revision in Int64(1)...10 {
            await hub.sessionMoved("main", document: ["revision": .int(revision)], entry: Self.entry(revision))
        }
        var received: [String] = []
        for await message in messages { received.append(message) }
        // The snapshot and the three updates that fit; then the stream ended instead of growing.
        #expect(received.count == 4)
    }

    @Test("A page that connects after the inspector stopped gets nothing but the end")
    func afterFinish() async {
        let hub = InspectorHub(timelineCapacity: 10)
        await hub.finish()
        let (_, messages) = await hub.subscribe()
        var count = 0
        for await _ in messages { count += 1 }
        #expect(count == 0)
    }
}
