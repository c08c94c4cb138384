import NavHostJSON
import Testing

@Suite("Serializing JSON with json-c")
struct JSONSerializationTests {
    @Test("Output is compact, keeps key order and does not escape slashes")
    func compactOutput() throws {
        let value: JSONValue = ["path": "/run/navhost", "list": [1, true, nil], "z": [:], "a": []]
        #expect(try value.serializedString() == #"{"path":"/run/navhost","list":[1,true,null],"z":{},"a":[]}"#)
    }

    @Test("Strings with quotes, controls and non-ASCII round-trip")
    func stringsRoundTrip() throws {
        let text = "q\"b\\s\n\t\u{1}é中😀\u{0}end"
        let value = JSONValue.array([.string(text)])
        let bytes = try value.serializedBytes()
        #expect(try JSONParser().parse(bytes) == value)
    }

    @Test(
        "Doubles serialize as their shortest exact form and read back equal",
        arguments: [0.1, 1.0, -0.0, 1e-7, 123_456.789, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .pi]
    )
    func doublesRoundTrip(number: Double) throws {
        let text = try JSONValue.double(number).serializedString()
        #expect(text == number.description)
        let back = try JSONParser().parse(text)
        #expect(back.doubleValue == number)
    }

    @Test("Int64 extremes serialize exactly")
    func integerExtremes() throws {
        #expect(try JSONValue.int(.max).serializedString() == "9223372036854775807")
        #expect(try JSONValue.int(.min).serializedString() == "-9223372036854775808")
    }

    @Test("NaN and infinity have no JSON form and are refused")
    func nonFinite() {
        for number in [Double.nan, .infinity, -.infinity] {
            let error = #expect(throws: JSONError.self) { try JSONValue.array([.double(number)]).serializedBytes() }
            #expect(error?.code == .nonFiniteNumber)
        }
    }

    @Test("A deep document round-trips through serialize and parse")
    func deepRoundTrip() throws {
        var value: JSONValue = ["leaf": [1, 2.5, "x", nil, false]]
        for level in 0..<40 { value = ["level\(level)": value, "n": .int(Int64(level))] }
        let parsed = try JSONParser(maxDepth: 64).parse(value.serializedBytes())
        #expect(parsed == value)
    }
}
