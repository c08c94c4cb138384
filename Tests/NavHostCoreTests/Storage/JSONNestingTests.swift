import NavHostJSON
import Testing

@testable import NavHostStorage

@Suite("How deep a state file's JSON nests")
struct JSONNestingTests {
    @Test(
        "Arrays, objects and the values inside them count; brackets inside strings and escaped quotes do not",
        arguments: [
            (#"1"#, 1), (#"[]"#, 1), (#"[1]"#, 2), (#"[[],[[]]]"#, 3), (#"{"a":{"b":[1]}}"#, 4), (#"{"a":[]}"#, 2),
            (#"["[[[{{"]"#, 2), (#"{"k\"[":"\\","v":["]\"{"]}"#, 3), (#""\\\"[""#, 1), (#"[true, null, -1.5e3]"#, 2),
        ]
    )
    func depth(text: String, depth: Int) {
        #expect(JSONNesting.depth(of: Array(text.utf8)) == depth)
    }

    @Test(
        "What the daemon's reader refuses, and only that, is refused before it is written",
        arguments: ["[", "{\"a\":"],
        ["[]", "1", "\"s\"", "{}", "{\"k\":true}"]
    )
    func agreesWithTheReader(opening: String, innermost: String) throws {
        let closing = opening == "[" ? "]" : "}"
        for levels in 60...66 {
            let text = Array(
                (String(repeating: opening, count: levels) + innermost + String(repeating: closing, count: levels)).utf8
            )
            let readBack = (try? JSONParser().parse(text)) != nil
            let written = (try? JSONNesting.check(text, for: "/state/store/Feature.json")) != nil
            // Before, containers alone were counted: 64 arrays around a number were written, and not read back.
            #expect(written == readBack, "\(levels) × \(opening) around \(innermost): read back \(readBack)")
        }
    }

    @Test("One level more inside its envelope is refused, with nothing written, and says how deep")
    func limit() throws {
        let deepest = Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8)
        try JSONNesting.check(deepest, for: "/state/main.json")
        #expect(throws: FileAccessError.self) { try JSONNesting.check(deepest, enclosedIn: 1, for: "/state/main.json") }
        let tooDeep = Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        let error = #expect(throws: FileAccessError.self) { try JSONNesting.check(tooDeep, for: "/state/main.json") }
        #expect(error?.code == .tooDeep)
        #expect(error?.message.contains("65 levels") == true, "\(String(describing: error))")
    }
}
