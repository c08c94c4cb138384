import NavHostInspector
import NavHostJSON
import Testing

/// The per-session timeline: bounded, oldest dropped first.
@Suite("The revision timeline")
struct InspectorTimelineTests {
    static func patch(_ revision: Int64) -> InspectorTimeline.Entry {
        InspectorTimeline.Entry(revision: revision, kind: .patch, change: ["revision": .int(revision)])
    }

    @Test("It keeps at most its capacity, dropping the oldest revisions first")
    func bounded() {
        var timeline = InspectorTimeline(capacity: 200)
        for revision in Int64(1)...250 { timeline.append(Self.patch(revision)) }
        #expect(timeline.entries.count == 200)
        #expect(timeline.entries.first?.revision == 51)
        #expect(timeline.entries.last?.revision == 250)
        #expect(timeline.entries.map(\.revision) == Array(51...250))
    }

    @Test("Below its capacity it keeps everything, in order")
    func belowCapacity() {
        var timeline = InspectorTimeline(capacity: 5)
        timeline.append(InspectorTimeline.Entry(revision: 1, kind: .document, change: ["stack": ["s1"]]))
        timeline.append(Self.patch(2))
        #expect(timeline.entries.map(\.revision) == [1, 2])
        #expect(timeline.entries.map(\.kind) == [.document, .patch])
    }

    @Test("A revision's diff is found while it is kept, and not after it was dropped")
    func lookup() {
        var timeline = InspectorTimeline(capacity: 3)
        for revision in Int64(1)...5 { timeline.append(Self.patch(revision)) }
        #expect(timeline.entry(for: 4)?.change == ["revision": 4])
        #expect(timeline.entry(for: 2) == nil)
    }

    @Test("A capacity below one keeps one entry")
    func smallestCapacity() {
        var timeline = InspectorTimeline(capacity: 0)
        timeline.append(Self.patch(1))
        timeline.append(Self.patch(2))
        #expect(timeline.capacity == 1)
        #expect(timeline.entries.map(\.revision) == [2])
    }
}
