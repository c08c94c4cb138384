import NavHostJSON
import Testing

@Suite("Parsing JSON with json-c")
struct JSONParserTests {
    let parser = JSONParser()

    @Test("A nested document parses into the same structure, keys in order")
    func nestedDocumentParses() throws {
        let value = try parser.parse(#" {"b":[1,2.5,{"c":null}],"a":true,"s":"x"} "#)
        #expect(value == ["b": [1, 2.5, ["c": nil]], "a": true, "s": "x"])
        #expect(Array(value.objectValue!.keys) == ["b", "a", "s"])
    }

    @Test("Escapes and non-ASCII text decode to the right characters")
    func escapesAndUnicode() throws {
        let value = try parser.parse(#"["a\"b\\c\/d\n\t", "\u00e9\u4e2d\ud83d\ude00", "é中😀", "\u0000x"]"#)
        #expect(value == ["a\"b\\c/d\n\t", "é中😀", "é中😀", "\u{0}x"])
    }

    @Test("Int64 limits stay exact; larger integers become doubles")
    func integerEdges() throws {
        #expect(try parser.parse("9223372036854775807") == .int(.max))
        #expect(try parser.parse("-9223372036854775808") == .int(.min))
        #expect(try parser.parse("0") == .int(0))
        #expect(try parser.parse("-0") == .int(0))
        #expect(try parser.parse("18446744073709551615") == .double(Double(UInt64.max)))
    }

    @Test(
        "An integer beyond UInt64.max or below Int64.min reads as a double, not as the limit json-c reads it as",
        arguments: [
            ("-9223372036854775809", .double(-9_223_372_036_854_775_809.0)),
            ("184467440737095516160", .double(184_467_440_737_095_516_160.0)),
            (#"["\"", -9223372036854775809]"#, ["\"", .double(-9_223_372_036_854_775_809.0)]),
            (#"["\\", 18446744073709551616e0, 18446744073709551617]"#, ["\\", .double(0x1p64), .double(0x1p64)]),
            ("-100000000000000000000000000000", .double(-1e29)),
            ("[1, 200000000000000000000000000000, -3]", [1, .double(2e29), -3]),
            (
                #"{"-99999999999999999999":-9223372036854775808,"b":-99999999999999999999}"#,
                ["-99999999999999999999": .int(.min), "b": .double(-99_999_999_999_999_999_999.0)]
            ),
        ] as [(String, JSONValue)]
    )
    func integersBeyondTheLimits(text: String, expected: JSONValue) throws {
        #expect(try parser.parse(text) == expected)
    }

    @Test("The limits themselves, and integers in text that is not a number, read as they are")
    func integerLimitsStayExact() throws {
        #expect(try parser.parse("[-9223372036854775808, 18446744073709551615]") == [.int(.min), .double(0x1p64)])
        #expect(
            try parser.parse(#"["-9223372036854775809", -9223372036854775808]"#) == [
                "-9223372036854775809", .int(.min),
            ]
        )
        #expect(
            try parser.parse("[-92233720368547758090e-1, -9223372036854775809.5]") == [
                .double(-9_223_372_036_854_775_809.0), .double(-9_223_372_036_854_775_809.5),
            ]
        )
    }

    @Test("Doubles keep their value, including extremes")
    func doubleEdges() throws {
        #expect(try parser.parse("0.1") == .double(0.1))
        #expect(try parser.parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try parser.parse("5e-324") == .double(.leastNonzeroMagnitude))
        #expect(try parser.parse("-2.5E+3") == .double(-2500))
    }

    @Test("A bare number at the end of the input is complete")
    func bareNumber() throws {
        #expect(try parser.parse("42") == .int(42))
        #expect(try parser.parse(" 42 \n") == .int(42))
    }

    @Test("Strings in single quotes are refused, keys too (json-c's strict mode takes those); a bare dot is taken")
    func strictModeExtensions() throws {
        #expect(throws: JSONError.self) { try parser.parse("'main'") }
        #expect(throws: JSONError.self) { try parser.parse(#"{"session":'main'}"#) }
        #expect(try parser.parse("[1.]") == [.double(1)])
        // A key json-c takes: its quotes would hide a `"`, digits or `\u0000` from the checks that read the text.
        for (text, offset) in [
            (#"{'k':1}"#, 1), (#"{"a":1, 'b':2}"#, 8), (#"{'"':-9223372036854775809}"#, 1),
            (#"{'18446744073709551616':1}"#, 1), (#"{'a\u0000b':1}"#, 1),
        ] {
            let error = #expect(throws: JSONError.self, "\(text)") { try parser.parse(text) }
            #expect(error?.code == .syntax, "\(text)")
            #expect(error?.offset == offset, "\(text)")
        }
        #expect(try parser.parse(#"{"it's":"Tom's"}"#) == ["it's": "Tom's"])
    }

    @Test(
        "Invalid input fails with a syntax error at the offending byte",
        arguments: [
            (#"{"a":}"#, 5),
            (#"{"a" 1}"#, 5),
            ("[1,2,,3]", 5),
            ("[1,]", 3),
            ("[TRUE]", 1),
            ("[01]", 3),
            ("[.5]", 1),
        ]
    )
    func syntaxErrorOffsets(input: String, offset: Int) {
        let error = #expect(throws: JSONError.self) { try parser.parse(input) }
        #expect(error?.offset == offset, "for \(input): \(String(describing: error))")
        #expect(error?.code == .syntax)
    }

    @Test("Input that stops inside a value is incomplete")
    func incompleteInput() {
        let error = #expect(throws: JSONError.self) { try parser.parse(#"{"a":[1,2"#) }
        #expect(error?.code == .incomplete)
        let empty = #expect(throws: JSONError.self) { try parser.parse("") }
        #expect(empty?.code == .incomplete)
    }

    @Test("Bytes after a complete value are reported with their offset")
    func trailingBytes() {
        let error = #expect(throws: JSONError.self) { try parser.parse(#"{"a":1} x"#) }
        #expect(error?.code == .trailingBytes)
        #expect(error?.offset == 8)
        let second = #expect(throws: JSONError.self) { try parser.parse("[1][2]") }
        #expect(second?.code == .trailingBytes)
        #expect(second?.offset == 3)
    }

    @Test("Nesting up to the limit parses; one level deeper is refused")
    func depthLimit() throws {
        let limited = JSONParser(maxDepth: 5)
        let atLimit = String(repeating: "[", count: 5) + String(repeating: "]", count: 5)
        #expect(try limited.parse(atLimit) != .null)
        let tooDeep = String(repeating: "[", count: 6) + String(repeating: "]", count: 6)
        let error = #expect(throws: JSONError.self) { try limited.parse(tooDeep) }
        #expect(error?.code == .depthLimitExceeded)
        let huge = String(repeating: #"{"a":"#, count: 10_000)
        #expect(throws: JSONError.self) { try JSONParser().parse(huge) }
    }

    @Test("Invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        let bytes: [UInt8] = Array(#"[""#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8)
        let error = #expect(throws: JSONError.self) { try parser.parse(bytes) }
        #expect(error?.code == .invalidUTF8)
    }

    @Test("Comments and other json-c extensions are refused in strict mode")
    func strictMode() {
        #expect(throws: JSONError.self) { try parser.parse("[1] // comment") }
        #expect(throws: JSONError.self) { try parser.parse("[1 /* c */]") }
        for literal in ["[NaN]", "[Infinity]", "[-Infinity]", "[nan]"] {
            let error = #expect(throws: JSONError.self) { try parser.parse(literal) }
            #expect(error?.code == .syntax, "\(literal)")
        }
    }

    @Test("Parses on one thread share a tokenizer, and each starts clean after a failure or at another depth")
    func parsesInARow() throws {
        let inputs: [(String, JSONValue?)] = [
            (#"{"a":[1,2"#, nil), (#"{"a":1}"#, ["a": 1]), ("[1][2]", nil), ("12", 12), (" 7 ", 7), ("[1 x", nil),
            (#"{"b":"é"}"#, ["b": "é"]), ("", nil), ("true", true),
        ]
        for _ in 0..<3 {
            for (text, expected) in inputs {
                if let expected {
                    #expect(try parser.parse(text) == expected, "\(text)")
                } else {
                    #expect(throws: JSONError.self, "\(text)") { try parser.parse(text) }
                }
            }
            // A parse that fails inside a surrogate pair leaves json-c's tokenizer holding half of it: the next
            // parse on this thread must not see it.
            for broken in [#"["\ud83d\uZZZZ"]"#, #"["\ud83d"#] {
                #expect(throws: JSONError.self, "\(broken)") { try parser.parse(broken) }
                #expect(try parser.parse(#"["\u00e9"]"#) == ["é"], "after \(broken)")
            }
            let shallow = #expect(throws: JSONError.self) { try JSONParser(maxDepth: 1).parse("[[]]") }
            #expect(shallow?.code == .depthLimitExceeded)
            #expect(try parser.parse("[[[]]]") == [[[]]])
        }
    }

    @Test("A single trailing NUL is taken as the terminator; json-c reads nothing after a NUL that ends the value")
    func nulTerminator() throws {
        #expect(try parser.parse(Array("{}".utf8) + [0]) == [:])
        #expect(try parser.parse(Array(#"{"a":1} "#.utf8) + [0] + Array("junk".utf8)) == ["a": 1])
        #expect(try parser.parse(Array("[1]".utf8) + [0, 0]) == [1])
        // Nothing after the NUL is looked at, by json-c or by the checks the parser makes of the text itself: a
        // single quote, a key that would hold \u0000, an integer past json-c's limits, in any order.
        // Before the NUL, the checks hold as ever.
        let keyHoldingNUL = #expect(throws: JSONError.self) {
            try parser.parse(Array(#"{"a\u0000":1}"#.utf8) + [0] + Array("x".utf8))
        }
        #expect(keyHoldingNUL?.offset == 1)
        let singleQuoted = #expect(throws: JSONError.self) {
            try parser.parse(Array("{'a':1}".utf8) + [0] + Array("'".utf8))
        }
        #expect(singleQuoted?.offset == 1)
        #expect(
            try parser.parse(Array("18446744073709551616".utf8) + [0] + Array("'".utf8))
                == .double(18_446_744_073_709_551_616)
        )
        for junk in ["'", #""\u0000":"#, #""'\u"\u0000":"#, "99999999999999999999999", #"'a\u0000'"#] {
            #expect(try parser.parse(Array("{}".utf8) + [0] + Array(junk.utf8)) == [:], "\(junk)")
            #expect(
                try parser.parse(Array(#"{"n":18446744073709551616} "#.utf8) + [0] + Array(junk.utf8)) == [
                    "n": .double(18_446_744_073_709_551_616)
                ],
                "\(junk)"
            )
        }
    }

    @Test("A key holding \\u0000 is refused, where it starts; the same escape in a value, or escaped, is text")
    func nulInKeyIsRefused() throws {
        // json-c keeps keys as C strings: "a\u0000b" would become "a" and collide with a real "a".
        let error = #expect(throws: JSONError.self) { try parser.parse(#"{"a":1, "a\u0000b":2}"#) }
        #expect(error?.code == .syntax)
        #expect(error?.offset == 8)
        // In text read a second time (a value at json-c's integer limit, a `'` in a string): the same error.
        for (text, offset) in [
            (#"{"n":18446744073709551616, "a\u0000b":2}"#, 27), (#"{"s":"it's", "a\u0000b":2}"#, 13),
        ] {
            let error = #expect(throws: JSONError.self, "\(text)") { try parser.parse(text) }
            #expect(error?.offset == offset, "\(text)")
            #expect(error?.message.contains("an object key holds \\u0000") == true, "\(String(describing: error))")
        }
        #expect(try parser.parse(#"{"k":"a\u0000b"}"#)["k"] == .string("a\u{0}b"))
        #expect(try parser.parse(#"{"a\\u0000":1}"#) == [#"a\u0000"#: 1])
        #expect(throws: JSONError.self) { try JSONValue.object(["a\u{0}b": 1]).serializedString() }
    }
}

@Suite("Parsing one JSON value that arrives in chunks")
struct JSONIncrementalParserTests {
    @Test("A value split across chunks comes out whole once its last chunk arrives")
    func splitAcrossChunks() throws {
        let parser = JSONIncrementalParser()
        #expect(try parser.feed(Array(#"{"a":"#.utf8)) == nil)
        #expect(try parser.feed(Array(#"[1,2],"#.utf8)) == nil)
        #expect(try parser.feed(Array(#""b":"é"}"#.utf8)) == ["a": [1, 2], "b": "é"])
    }

    @Test("Feeding one byte at a time gives the same value, multi-byte characters included")
    func oneByteAtATime() throws {
        let text = #"{"k":"é中😀\n","n":[1.5,null,true]}"#
        let parser = JSONIncrementalParser()
        var result: JSONValue?
        for byte in text.utf8 { result = try parser.feed([byte]) ?? result }
        #expect(result == ["k": "é中😀\n", "n": [1.5, nil, true]])
    }

    @Test("A number at the end is completed by finish()")
    func finishCompletesNumber() throws {
        let parser = JSONIncrementalParser()
        #expect(try parser.feed(Array("12".utf8)) == nil)
        #expect(try parser.finish() == .int(12))
    }

    @Test("An error's offset counts from the first byte fed")
    func errorOffsetAcrossChunks() throws {
        let parser = JSONIncrementalParser()
        _ = try parser.feed(Array("[1, 2, ".utf8))
        let error = #expect(throws: JSONError.self) { try parser.feed(Array("}".utf8)) }
        #expect(error?.offset == 7)
    }

    @Test("finish() on a cut-off value reports it incomplete")
    func finishIncomplete() throws {
        let parser = JSONIncrementalParser()
        _ = try parser.feed(Array(#"{"a":"#.utf8))
        let error = #expect(throws: JSONError.self) { try parser.finish() }
        #expect(error?.code == .incomplete)
    }

    @Test("Invalid UTF-8 split across chunks is still refused")
    func invalidUTF8AcrossChunks() throws {
        let parser = JSONIncrementalParser()
        _ = try parser.feed([0x22, 0xC3])
        let error = #expect(throws: JSONError.self) { try parser.feed([0x28, 0x22]) }
        #expect(error?.code == .invalidUTF8)
    }

    @Test("A key holding \\u0000 is refused where it starts, wherever the chunks split it; in a value it is text")
    func keyHoldingNULAcrossChunks() throws {
        let text = #"{"a":1, "a\u0000b" :2}"#
        for split in 1..<text.utf8.count {
            let parser = JSONIncrementalParser()
            let error = #expect(throws: JSONError.self) {
                _ = try parser.feed(Array(text.utf8.prefix(split)))
                _ = try parser.feed(Array(text.utf8.dropFirst(split)))
            }
            #expect(error?.offset == 8, "split at \(split)")
        }
        let parser = JSONIncrementalParser()
        _ = try parser.feed(Array(#"{"k":"a\u00"#.utf8))
        #expect(try parser.feed(Array(#"00b", "\\u0000":1}"#.utf8)) == ["k": "a\u{0}b", #"\u0000"#: 1])
    }

    @Test("An integer beyond UInt64.max or below Int64.min is refused where it starts, wherever the chunks split it")
    func integerBeyondTheLimitsAcrossChunks() throws {
        for text in [#"{"a":[1, -9223372036854775809]}"#, #"{"a":[1, 18446744073709551616]}"#] {
            for split in 1..<text.utf8.count {
                let parser = JSONIncrementalParser()
                let error = #expect(throws: JSONError.self) {
                    _ = try parser.feed(Array(text.utf8.prefix(split)))
                    _ = try parser.feed(Array(text.utf8.dropFirst(split)))
                }
                #expect(error?.code == .syntax, "\(text) split at \(split)")
                #expect(error?.offset == 9, "\(text) split at \(split)")
            }
        }
        for text in [#"{'"':-9223372036854775809}"#, #"{'18446744073709551616':1}"#] {
            let error = #expect(throws: JSONError.self, "\(text)") {
                try JSONIncrementalParser().feed(Array(text.utf8))
            }
            #expect(error?.offset == 1, "\(text)")
        }
        let parser = JSONIncrementalParser()
        #expect(try parser.feed(Array("-92233720368547".utf8)) == nil)
        #expect(try parser.feed(Array("75809".utf8)) == nil)
        #expect(throws: JSONError.self) { try parser.finish() }
        parser.reset()
        #expect(
            try parser.feed(Array("[-9223372036854775808, 18446744073709551615, 1e30]".utf8)) == [
                .int(.min), .double(0x1p64), .double(1e30),
            ]
        )
    }

    @Test("After reset() the parser reads a new value")
    func resetReadsAgain() throws {
        let parser = JSONIncrementalParser()
        #expect(try parser.feed(Array("[1]".utf8)) == [1])
        parser.reset()
        #expect(try parser.feed(Array(#"{"x":2}"#.utf8)) == ["x": 2])
    }
}
