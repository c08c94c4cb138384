import NavHostKit
import Testing

@testable import NavHostStorage

/// ``SessionRecord/appendJSON(to:)`` writes the text by hand for speed: it must stay what `Codable` makes of a record.
@Suite("A session record's JSON")
struct SessionRecordJSONTests {
    static let records: [SessionRecord] = [
        SessionRecord(session: "main", revision: 0, nextScreenNumber: 1, stack: []),
        SessionRecord(
            session: "kiosk 2",
            revision: 7_000,
            nextScreenNumber: 12,
            stack: [
                .init(
                    id: ScreenID("s1"),
                    route: "home.main",
                    parameters: [:],
                    presentation: .push,
                    restorable: nil
                ),
                .init(
                    id: ScreenID("s11"),
                    route: "products.list",
                    parameters: ["category": "Books", "page": 2, "tags": ["a", "b"]],
                    presentation: .modal,
                    restorable: ["filter": "lamp \"desk\"\n", "nested": ["on": true, "none": nil]]
                ),
                .init(
                    id: ScreenID("s12"),
                    route: "products.detail",
                    parameters: ["productID": "p1"],
                    presentation: .push,
                    restorable: nil,
                    openedBy: ScreenID("s11")
                ),
                .init(
                    id: ScreenID("s13"),
                    route: "products.review",
                    parameters: [:],
                    presentation: .modal,
                    restorable: ["draft": "ok"],
                    openedBy: ScreenID("s12")
                ),
            ]
        ),
        SessionRecord(session: "edge", revision: UInt64(Int64.max) + 1, nextScreenNumber: Int.max, stack: []),
    ]

    @Test("It is the text of what JSONValueEncoder makes of the record, and decodes back to it", arguments: records)
    func matchesCodable(record: SessionRecord) throws {
        let encoded = try JSONValueEncoder().encode(record)
        var text: [UInt8] = []
        try record.appendJSON(to: &text)
        #expect(text == (try encoded.serializedBytes()))
        #expect(try JSONParser().parse(text[...]) == encoded)
        if record.revision <= UInt64(Int64.max) {
            #expect(try JSONValueDecoder().decode(SessionRecord.self, from: JSONParser().parse(text[...])) == record)
        }
    }
}
