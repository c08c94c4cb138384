import NavHostJSON
import Testing

@Suite("JSONObject: NavHost's own ordered JSON object")
struct JSONObjectTests {
    @Test("Members keep their insertion order; setting an existing key keeps its place", arguments: [3, 40])
    func orderIsKept(count: Int) {
        var object = JSONObject()
        for index in 0..<count { object["k\(index)"] = .int(Int64(index)) }
        object["k1"] = "changed"
        #expect(object.keys == (0..<count).map { "k\($0)" })
        #expect(object["k1"] == "changed")
        #expect(object.count == count)
    }

    @Test("Removing a member keeps the others in order and findable, small or large", arguments: [5, 40])
    func removalKeepsTheRest(count: Int) {
        var object = JSONObject()
        for index in 0..<count { object["k\(index)"] = .int(Int64(index)) }
        #expect(object.removeValue(forKey: "k2") == 2)
        #expect(object.removeValue(forKey: "missing") == nil)
        #expect(object.keys == (0..<count).filter { $0 != 2 }.map { "k\($0)" })
        for index in (0..<count) where index != 2 {
            #expect(object["k\(index)"] == .int(Int64(index)), "k\(index)")
            #expect(object.index(forKey: "k\(index)") == (index < 2 ? index : index - 1))
        }
        object["k2"] = "back"
        #expect(object.keys.last == "k2")
    }

    @Test("Equality is by members in order, and equal objects hash alike")
    func equalityIsOrdered() {
        let ab: JSONObject = ["a": 1, "b": 2]
        #expect(ab == ["a": 1, "b": 2])
        #expect(ab != ["b": 2, "a": 1])
        let same: JSONObject = ["a": 1, "b": 2]
        #expect(ab.hashValue == same.hashValue)
    }

    @Test("A literal with a repeated key keeps its first place and its last value")
    func repeatedLiteralKey() {
        let object = JSONObject([("a", 1), ("b", 2), ("a", 3)], uniquingKeysWith: { _, last in last })
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
    }

    @Test("merge, filter and mapValues keep the order of the keys")
    func transformsKeepOrder() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object.merge(["b": 20, "d": 4] as JSONObject) { _, new in new }
        #expect(object == ["a": 1, "b": 20, "c": 3, "d": 4])
        #expect(object.filter { $0.key != "c" }.keys == ["a", "b", "d"])
        #expect(object.mapValues { _ in .null }.keys == ["a", "b", "c", "d"])
    }

    @Test("Parsed, serialized and Codable forms keep the member order")
    func wireFormsKeepOrder() throws {
        let text = #"{"z":1,"a":{"y":true,"b":null},"m":[1,"x"]}"#
        let value = try JSONParser().parse(Array(text.utf8))
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(try value.serializedString() == text)
        let object = try JSONValueDecoder().decode(JSONObject.self, from: value)
        #expect(try JSONValueEncoder().encode(object) == value)
    }

    @Test("A value is read into by key and by index: an array's element, nil past its end or when not an array")
    func subscripts() {
        let state: JSONValue = ["items": [["title": "Milk"], ["title": "Eggs"]], "count": 2]
        #expect(state["items"]?[1]?["title"] == "Eggs")
        #expect(state["items"]?[2] == nil)
        #expect(state["items"]?[-1] == nil)
        #expect(state[0] == nil, "an object has no elements")
        #expect(state["count"]?[0] == nil)
    }
}
