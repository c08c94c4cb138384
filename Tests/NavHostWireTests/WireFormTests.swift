import NavHostJSON
import NavHostKit
import Testing

@testable import NavHostWire

/// The direct wire forms (`jsonValue`) of snapshots and events, which replies and watchers use, against their `Codable`
/// forms, which persistence and clients decode.
@Suite("Wire forms of snapshots and events")
struct WireFormTests {
    let screen = ScreenSnapshot(
        id: ScreenID("s2"),
        route: RouteRequest(id: "products.detail", parameters: ["productID": "p1"]),
        presentation: .modal,
        state: ["status": "loaded", "value": ["name": "Kit", "price": 12.5, "tags": ["a", nil]]]
    )

    @Test("A screen's direct wire form is its Codable form, with and without an error")
    func screenForm() throws {
        var failed = screen
        failed.error = "onTappedSave did not finish within 30.0 seconds"
        for snapshot in [screen, failed] {
            #expect(snapshot.jsonValue == (try JSONValueEncoder().encode(snapshot)))
        }
        #expect(try screen.jsonValue.serializedString().contains(#""parameters":{"productID":"p1"}"#))
    }

    @Test("A session's direct wire form is its Codable form")
    func sessionForm() throws {
        let root = ScreenSnapshot(
            id: ScreenID("s1"),
            route: RouteRequest(id: "home.main"),
            presentation: .push,
            state: [:]
        )
        let snapshot = SessionSnapshot(session: "main", revision: 42, stack: [root, screen])
        #expect(snapshot.jsonValue == (try JSONValueEncoder().encode(snapshot)))
    }

    @Test(
        "Every kind of event's direct wire form is its Codable form",
        arguments: [
            SessionEvent.Change.pushed(
                ScreenSnapshot(id: ScreenID("s3"), route: RouteRequest(id: "a.b"), presentation: .push, state: [:])
            ),
            .popped([ScreenID("s3"), ScreenID("s2")]),
            .replaced([
                ScreenSnapshot(id: ScreenID("s4"), route: RouteRequest(id: "a.b"), presentation: .push, state: [:])
            ]),
            .stateChanged(ScreenID("s2"), ["filter": "engine"]),
            .errorChanged(ScreenID("s2"), "timed out"),
            .errorChanged(ScreenID("s2"), nil),
        ]
    )
    func eventForm(change: SessionEvent.Change) throws {
        let event = SessionEvent(revision: 7, change: change)
        #expect(event.jsonValue == (try JSONValueEncoder().encode(event)))
        #expect(try JSONValueDecoder().decode(SessionEvent.self, from: event.jsonValue) == event)
    }
}
