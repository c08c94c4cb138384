import NavHostClient
import NavHostJSON
import NavHostKit
import NavHostWire
import Testing

/// Keeping a local copy of a session current from watch updates.
@Suite("Applying watch updates")
struct SessionSnapshotApplyTests {
    private static func screen(_ id: String, _ route: String, state: JSONValue = [:]) -> ScreenSnapshot {
        ScreenSnapshot(id: ScreenID(id), route: RouteRequest(id: route), presentation: .push, state: state)
    }

    @Test("Pushes, state changes, pops and replacements change the copy as the daemon changed the session")
    func events() {
        var session = SessionSnapshot(session: "main", revision: 1, stack: [Self.screen("s1", "home.main")])

        session.apply(SessionEvent(revision: 2, change: .pushed(Self.screen("s2", "products.list"))))
        session.apply(SessionEvent(revision: 3, change: .stateChanged(ScreenID("s2"), ["status": "loaded"])))
        #expect(session.revision == 3)
        #expect(session.top?.state == ["status": "loaded"])

        session.apply(SessionEvent(revision: 4, change: .pushed(Self.screen("s3", "products.detail"))))
        session.apply(SessionEvent(revision: 5, change: .popped([ScreenID("s3"), ScreenID("s2")])))
        #expect(session.stack.map(\.id) == [ScreenID("s1")])

        session.apply(SessionEvent(revision: 6, change: .replaced([Self.screen("s4", "settings.main")])))
        #expect(session.stack.map(\.route.id) == ["settings.main"])
        #expect(session.revision == 6)
    }

    @Test("An event at or below the copy's revision changes nothing")
    func oldEvents() {
        var session = SessionSnapshot(session: "main", revision: 7, stack: [Self.screen("s1", "home.main")])
        session.apply(SessionEvent(revision: 7, change: .pushed(Self.screen("s2", "products.list"))))
        #expect(session.stack.count == 1)
        #expect(session.revision == 7)
    }

    @Test("A snapshot update replaces the copy, coalesced or not")
    func snapshots() {
        var session = SessionSnapshot(session: "main", revision: 0, stack: [])
        let later = SessionSnapshot(session: "main", revision: 12, stack: [Self.screen("s1", "home.main")])
        session.apply(.snapshot(later, coalesced: true))
        #expect(session == later)
    }
}
