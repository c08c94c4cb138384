import NavHostJSON
import Testing

@testable import NavHostStorage

@Suite("How deep a state file's JSON nests")
struct JSONNestingTests {
    @Test(
        "Arrays and objects count, brackets inside strings and escaped quotes do not",
        arguments: [
            (#"1"#, 0), (#"[]"#, 1), (#"[[],[[]]]"#, 3), (#"{"a":{"b":[1]}}"#, 3),
            (#"["[[[{{"]"#, 1), (#"{"k\"[":"\\","v":["]\"{"]}"#, 2), (#""\\\"[""#, 0),
        ]
    )
    func depth(text: String, depth: Int) throws {
        #expect(JSONNesting.depth(of: Array(text.utf8)) == depth)
        // As deep as the daemon's reader measures it.
        let parsed = try JSONParser().parse(Array(text.utf8))
        #expect(Self.depth(of: parsed) == depth)
    }

    @Test("What the reader takes is written; one level more, inside its envelope too, is refused with nothing written")
    func limit() throws {
        let deepest = Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8)
        try JSONNesting.check(deepest, for: "/state/main.json")
        #expect(throws: FileAccessError.self) { try JSONNesting.check(deepest, enclosedIn: 1, for: "/state/main.json") }
        let tooDeep = Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        #expect(throws: JSONError.self) { try JSONParser().parse(tooDeep) }
        let error = #expect(throws: FileAccessError.self) { try JSONNesting.check(tooDeep, for: "/state/main.json") }
        #expect(error?.code == .tooDeep)
        #expect(error?.message.contains("65 levels") == true, "\(String(describing: error))")
    }

    private static func depth(of value: JSONValue) -> Int {
        if let elements = value.arrayValue { return 1 + (elements.map(depth(of:)).max() ?? 0) }
        if let members = value.objectValue { return 1 + (members.map { depth(of: $0.value) }.max() ?? 0) }
        return 0
    }
}
