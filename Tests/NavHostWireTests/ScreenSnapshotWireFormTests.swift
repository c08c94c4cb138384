import NavHostKit
import NavHostWire
import Testing

/// The `Screen` type of io.navhost.Navigation, as ScreenSnapshot encodes and decodes it.
@Suite("Screen wire form")
struct ScreenSnapshotWireFormTests {
    @Test("Route parameters are a JSON object on the wire, not an array of keys and values")
    func parametersAreAnObject() throws {
        let screen = ScreenSnapshot(
            id: ScreenID("s3"),
            route: RouteRequest(id: "products.detail", parameters: ["productID": "p3", "count": 2]),
            presentation: .push,
            state: ["status": "loading"]
        )

        let json = try JSONValueEncoder().encode(screen)

        #expect(
            try json.serializedString()
                == #"{"id":"s3","route":"products.detail","parameters":{"productID":"p3","count":2},"#
                + #""presentation":"push","state":{"status":"loading"}}"#
        )
        #expect(try JSONValueDecoder().decode(ScreenSnapshot.self, from: json) == screen)
    }

    @Test("Parameters that are missing or null decode as none; any other non-object is refused")
    func parametersAbsentOrWrong() throws {
        let bare: JSONValue = ["id": "s1", "route": "home.main", "presentation": "push", "state": [:]]
        #expect(try JSONValueDecoder().decode(ScreenSnapshot.self, from: bare).route.parameters.isEmpty)
        var wrong = bare.objectValue ?? [:]
        wrong["parameters"] = ["productID", "p3"]
        #expect(throws: (any Error).self) { try JSONValueDecoder().decode(ScreenSnapshot.self, from: .object(wrong)) }
    }

    @Test("A Send reply's parameters put together from the screen's text are the text of its JSON object")
    func sendResultText() throws {
        let screen = ScreenSnapshot(
            id: ScreenID("s2"),
            route: RouteRequest(id: "products.detail", parameters: ["productID": "p3"]),
            presentation: .modal,
            state: ["status": "loaded", "value": ["name": "Lamp \"L\"", "price": 14.5]],
            error: "the intent onTappedBuy ran out of time"
        )
        var screenText: [UInt8] = []
        try screen.jsonValue.appendSerializedBytes(to: &screenText)
        for (revision, snapshot) in [(11, screen), (12, nil), (UInt64.max, screen)] as [(UInt64, ScreenSnapshot?)] {
            var expected: [UInt8] = []
            try JSONValue.object(SendResult(revision: revision, screen: snapshot).jsonObject)
                .appendSerializedBytes(to: &expected)
            let text = try SendResult.serializedParameters(
                revision: revision,
                screen: snapshot == nil ? nil : screenText
            )
            #expect(text == expected, "revision \(revision)")
        }
    }

    @Test("A screen's text written member by member is the text of its JSON value, error or not")
    func appendedTextIsTheValuesText() throws {
        let screens = [
            ScreenSnapshot(
                id: ScreenID("s2"),
                route: RouteRequest(id: "products.detail", parameters: ["productID": "p\"3\"", "n": [1, 2.5]]),
                presentation: .modal,
                state: ["status": "loaded", "value": ["name": "Lamp \\ \n\u{1}", "price": 14.5, "tags": []]],
                error: "the intent onTappedBuy ran out of time \"now\""
            ),
            ScreenSnapshot(id: ScreenID("s1"), route: RouteRequest(id: "home.main"), presentation: .push, state: [:]),
            ScreenSnapshot(id: ScreenID("s9"), route: RouteRequest(id: "x"), presentation: .push, state: ["value": 3]),
        ]
        for screen in screens {
            var expected: [UInt8] = []
            try screen.jsonValue.appendSerializedBytes(to: &expected)
            var text: [UInt8] = Array("prefix".utf8)
            try screen.appendJSON(to: &text)
            #expect(text == Array("prefix".utf8) + expected, "\(screen.id)")
            #expect(try String(decoding: expected, as: UTF8.self) == screen.jsonValue.serializedString())
        }
    }
}
