import Foundation
import NavHostJSON
import NavHostKit
import Testing

@testable import NavHostWire

@Suite("Recordings: the .navrec format and the calls it holds")
struct SessionRecordingTests {
    private static let screen = RecordedScreen(
        ScreenSnapshot(
            id: ScreenID("s4"),
            route: RouteRequest(id: "catalog.detail", parameters: ["itemID": "i1"]),
            presentation: .modal,
            state: ["status": "loaded"],
            error: "timed out"
        )
    )

    private static let recording = SessionRecording(
        header: SessionRecording.Header(
            session: "main",
            root: RouteRequest(id: "home.main"),
            plugins: [SessionRecording.Plugin(name: "Catalog", version: "1.2.0")],
            base: SessionRecording.Base(revision: 4, stack: [screen], random: ["00000000000000ff"]),
            dropped: 7
        ),
        calls: [
            RecordedCall(call: .pop, error: "CannotPopRoot", revision: 4, stack: [screen]),
            RecordedCall(
                call: .send(IntentMessage(name: "onTappedRoll", arguments: ["times": 2]), position: 0),
                error: nil,
                revision: 6,
                stack: [screen],
                random: ["ffffffffffffffff", "0123456789abcdef"]
            ),
        ]
    )

    @Test("Who opened a screen is kept in a recording's JSON, left out when no one did, and not compared by a replay")
    func openedBy() throws {
        var opened = Self.screen
        opened.openedBy = 0
        let text = try JSONValueEncoder().encode([Self.screen, opened]).serializedString()
        #expect(!text.contains(#""openedBy":null"#) && text.contains(#""openedBy":0"#))
        let read = try JSONValueDecoder().decode([RecordedScreen].self, from: JSONParser().parse(Array(text.utf8)[...]))
        #expect(read == [Self.screen, opened])
        // A recording made before openers were recorded replays as identical against a stack that has them.
        #expect(
            ReplayReport.Difference(
                call: 1,
                method: "Pop",
                recorded: (1, nil, [Self.screen]),
                replayed: (1, nil, [opened])
            ) == nil
        )
        var moved = opened
        moved.route = "catalog.list"
        #expect(
            ReplayReport.Difference(
                call: 1,
                method: "Pop",
                recorded: (1, nil, [Self.screen]),
                replayed: (1, nil, [moved])
            ) != nil
        )
    }

    @Test(
        "A screen recorded busy says so in its JSON (only then); a replay compares its route, parameters and presentation, and neither compares nor shows its state"
    )
    func busy() throws {
        var busy = Self.screen
        busy.busy = true
        let text = try JSONValueEncoder().encode([Self.screen, busy]).serializedString()
        #expect(text.components(separatedBy: #""busy":true"#).count == 2 && !text.contains(#""busy":false"#))
        let read = try JSONValueDecoder().decode([RecordedScreen].self, from: JSONParser().parse(Array(text.utf8)[...]))
        #expect(read == [Self.screen, busy])

        var loaded = Self.screen
        loaded.state = ["status": "loaded", "items": [1, 2]]
        loaded.error = nil
        #expect(busy.matches(loaded) && !Self.screen.matches(loaded))
        #expect(
            ReplayReport.Difference(call: 1, method: "Pop", recorded: (1, nil, [busy]), replayed: (1, nil, [loaded]))
                == nil
        )

        // Another screen differs: the difference shown leaves out the state that was not compared.
        var other = loaded
        other.route = "catalog.list"
        let difference = try #require(
            ReplayReport.Difference(call: 1, method: "Pop", recorded: (1, nil, [busy]), replayed: (1, nil, [other]))
        )
        #expect(difference.recorded["0"]?["state"] == nil && difference.replayed["0"]?["state"] == nil)
        #expect(difference.patch == ["0": ["route": "catalog.list"]], "\(String(describing: difference.patch))")
    }

    @Test("JSON lines, a header then one call per line, read back to the same recording")
    func jsonLinesRoundTrip() throws {
        let text = try Self.recording.jsonLines()
        #expect(text.split(separator: "\n").count == 3)
        #expect(text.hasPrefix(#"{"format":"navhost-recording","version":1,"session":"main""#))
        #expect(try SessionRecording(jsonLines: text) == Self.recording)
        #expect(try SessionRecording(jsonValue: try Self.recording.jsonValue) == Self.recording)
        #expect(Self.recording.randomNumbers == [0xff, .max, 0x0123_4567_89ab_cdef])
    }

    @Test("Every call kind keeps its method and parameters, an intent's screen by its place on the stack")
    func callsRoundTrip() throws {
        let calls: [SessionCall] = [
            .navigate(RouteRequest(id: "catalog.detail", parameters: ["itemID": "i1"])),
            .present(RouteRequest(id: "catalog.editor")),
            .pop, .popToRoot, .dismiss,
            .popTo(RouteRequest(id: "home.main")),
            .replace([RouteRequest(id: "home.main"), RouteRequest(id: "catalog.list")]),
            .send(IntentMessage(name: "onTappedCatalog"), position: nil),
            .send(IntentMessage(name: "onChangedFilter", arguments: ["text": "lamp"]), position: 2),
        ]
        for call in calls {
            let value = try JSONValueEncoder().encode(call)
            #expect(value["method"] == .string(call.method))
            #expect(try JSONValueDecoder().decode(SessionCall.self, from: value) == call)
        }
        #expect(
            try JSONValueEncoder().encode(SessionCall.send(IntentMessage(name: "x"), position: 2))
                == ["method": "Send", "intent": "x", "arguments": [:], "position": 2]
        )
    }

    @Test("What is not a recording is refused with a message naming the line or the part that does not fit")
    func refusals() throws {
        let valid = try Self.recording.jsonLines().split(separator: "\n").map(String.init)
        let cases: [(text: String, message: String)] = [
            ("", "the recording is empty"),
            ("\n\n", "the recording is empty"),
            (#"{"format":"other"}"#, "is not a NavHost recording's header"),
            (valid[0].replacingOccurrences(of: #""version":1"#, with: #""version":2"#), "format version 2 is not 1"),
            ([valid[0], "{not json"].joined(separator: "\n"), "line 2 is not JSON"),
            ([valid[0], #"{"call":{"method":"Reboot"},"revision":1,"stack":[]}"#].joined(separator: "\n"), "call 1"),
            (valid[0].replacingOccurrences(of: #""session":"main","#, with: ""), "the header does not fit"),
        ]
        for refusal in cases {
            let error = #expect(throws: RecordingError.self, "\(refusal.text)") {
                try SessionRecording(jsonLines: refusal.text)
            }
            #expect(error?.message.contains(refusal.message) == true, "\(error?.message ?? "") \(refusal.message)")
        }
    }
}
