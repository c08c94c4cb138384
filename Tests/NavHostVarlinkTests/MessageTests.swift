import NIOCore
import NavHostJSON
import NavHostVarlink
import Testing

@Suite("Reading and writing Varlink calls and replies")
struct MessageTests {
    let parser = JSONParser()

    @Test("A full call reads into its parts; absent, null and empty parameters are the same")
    func readsCall() throws {
        let call = try VarlinkCall(
            parsing: parser.parse(#"{"method":"org.example.ftl.Jump","parameters":{"a":1},"more":true}"#)
        )
        #expect(call == VarlinkCall(method: "org.example.ftl.Jump", parameters: ["a": 1], more: true))
        #expect(call.interfaceName == "org.example.ftl")
        #expect(call.memberName == "Jump")
        for text in [
            #"{"method":"a.b.C"}"#, #"{"method":"a.b.C","parameters":null}"#, #"{"method":"a.b.C","parameters":{}}"#,
        ] {
            #expect(try VarlinkCall(parsing: parser.parse(text)).parameters.isEmpty)
        }
        #expect(
            try VarlinkCall(parsing: parser.parse(#"{"method":"a.b.C","oneway":null,"more":false}"#)).oneway == false
        )
    }

    @Test("A call is a value: a changed copy leaves the original as it was; equal calls hash alike")
    func callIsAValue() {
        let original = VarlinkCall(method: "a.b.C", parameters: ["x": 1])
        var copy = original
        copy.parameters["y"] = true
        copy.method = "a.b.D"
        copy.oneway = true
        #expect(original == VarlinkCall(method: "a.b.C", parameters: ["x": 1]))
        #expect(copy == VarlinkCall(method: "a.b.D", parameters: ["x": 1, "y": true], oneway: true))
        #expect(copy != original)
        #expect(copy.more == false && copy.upgrade == false)
        var made = VarlinkCall(method: "a.b.D", parameters: ["x": 1])
        made.parameters["y"] = true
        made.oneway = true
        #expect(made == copy && made.hashValue == copy.hashValue)
        #expect(Set([original, copy, made]).count == 2)
    }

    @Test(
        "A call that breaks the rules is a protocol error with the right code",
        arguments: [
            ("[]", VarlinkProtocolError.Code.notAnObject),
            (#"{"parameters":{}}"#, .missingMethod),
            (#"{"method":["a"]}"#, .invalidHeaderField),
            (#"{"method":"a.b.C","oneway":1}"#, .invalidHeaderField),
            (#"{"method":"a.b.C","parameters":"x"}"#, .invalidHeaderField),
            (#"{"method":"a.b.C","oneway":true,"upgrade":true}"#, .conflictingFlags),
            (#"{"method":"a.b.C","more":true,"oneway":true}"#, .conflictingFlags),
            (#"{"method":"a.b.C","id":7}"#, .unknownHeaderField),
        ]
    )
    func rejectsCall(text: String, code: VarlinkProtocolError.Code) throws {
        #expect {
            try VarlinkCall(parsing: parser.parse(text))
        } throws: { error in
            (error as? VarlinkProtocolError)?.code == code
        }
    }

    @Test("A call and a reply write compactly: empty parameters and false flags left out")
    func writesCompactly() throws {
        #expect(try VarlinkCall(method: "a.b.C").jsonValue.serializedString() == #"{"method":"a.b.C"}"#)
        #expect(
            try VarlinkCall(method: "a.b.C", parameters: ["x": 1], oneway: true).jsonValue.serializedString()
                == #"{"method":"a.b.C","parameters":{"x":1},"oneway":true}"#
        )
        #expect(try VarlinkReply().jsonValue.serializedString() == "{}")
        #expect(
            try VarlinkReply(parameters: ["n": 1], continues: true).jsonValue.serializedString()
                == #"{"parameters":{"n":1},"continues":true}"#
        )
        #expect(
            try VarlinkReply(error: .invalidParameter("x")).jsonValue.serializedString()
                == #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"x"}}"#
        )
    }

    @Test("A reply reads back; an error reply with continues is a protocol error")
    func readsReply() throws {
        let reply = try VarlinkReply(parsing: parser.parse(#"{"error":"a.b.E","parameters":{"k":"v"},"x.y":1}"#))
        #expect(reply.varlinkError == VarlinkError(name: "a.b.E", parameters: ["k": "v"]))
        #expect(throws: VarlinkProtocolError.self) {
            try VarlinkReply(parsing: parser.parse(#"{"error":"a.b.E","continues":true}"#))
        }
        #expect(throws: VarlinkProtocolError.self) {
            try VarlinkReply(parsing: parser.parse(#"{"parameters":{},"extra":1}"#))
        }
    }

    @Test("A message is written with the same bytes as json-c writes, escapes and numbers included")
    func writesAsJSONC() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let strings = [
            "", "plain", controls, #"quote " backslash \ slash / end"#, "del \u{7F}", "é ß 漢字 🧭", "\u{0}x",
            String(repeating: "long run without escapes ", count: 20) + "\n",
        ]
        let numbers: [JSONValue] = [
            0, 1, -1, .int(.max), .int(.min), 42_000_000_000, 0.1, -0.0, 5.0, 1e20, 1e-7, 123.456, .double(.pi),
            .double(.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude),
        ]
        let values: [JSONValue] =
            strings.map(JSONValue.string) + numbers + [
                .null, true, false, [], [:], [.null, [[]], [:]],
                // json-c keeps keys as C strings (`serializedBytes()` refuses a key with a NUL), so these have none.
                .object(
                    JSONObject(uniqueKeysWithValues: strings.map { ($0.replacing("\u{0}", with: "0"), .string($0)) })
                ),
                ["parameters": ["screen": ["id": "s1", "state": ["items": [1, 2.5, "x", .null, ["a": false]]]]]],
            ]
        for value in values + [.array(values), .object(["all": .array(values)])] {
            var buffer = ByteBuffer()
            let written = try buffer.writeVarlinkMessage(value)
            #expect(Array(buffer.readableBytesView) == (try value.serializedBytes()) + [0], "\(value)")
            #expect(written == buffer.readableBytes)
        }
    }

    @Test("A reply is written as the bytes of its JSON object, with and without error, parameters and continues")
    func writesReply() throws {
        let parameters: JSONObject = ["screen": ["id": "s1", "state": ["items": [1, 2.5, "x\n", .null]]], "n": 3]
        let replies = [
            VarlinkReply(),
            VarlinkReply(parameters: parameters),
            VarlinkReply(parameters: parameters, continues: true),
            VarlinkReply(continues: true),
            VarlinkReply(error: VarlinkError(name: "org.example.Failed")),
            VarlinkReply(error: VarlinkError(name: "org.example.\"Quoted\"", parameters: parameters)),
        ]
        for reply in replies {
            var buffer = ByteBuffer()
            let written = try buffer.writeVarlinkReply(reply)
            var expected = ByteBuffer()
            try expected.writeVarlinkMessage(reply.jsonValue)
            #expect(buffer == expected, "\(reply)")
            #expect(written == buffer.readableBytes)
            #expect(try VarlinkReply(parsing: parser.parse(Array(buffer.readableBytesView))) == reply)
        }
    }

    @Test("Parameters written as JSON text make the bytes of the reply with them as an object")
    func writesSerializedParameters() throws {
        let objects: [JSONObject] = [
            ["screen": ["id": "s1", "state": ["items": [1, 2.5, "x\n", .null]]], "n": 3],
            ["revision": 7],
            [:],
        ]
        for parameters in objects {
            var buffer = ByteBuffer()
            let written = buffer.writeVarlinkReply(try VarlinkSerializedParameters(parameters))
            var expected = ByteBuffer()
            try expected.writeVarlinkReply(VarlinkReply(parameters: parameters))
            #expect(buffer == expected, "\(parameters)")
            #expect(written == buffer.readableBytes)
        }
    }

    @Test("A key with a NUL is written whole, escaped like any string")
    func writesKeyWithNUL() throws {
        var buffer = ByteBuffer()
        try buffer.writeVarlinkMessage(["a\u{0}b": 1])
        #expect(String(buffer: buffer) == #"{"a\u0000b":1}"# + "\u{0}")
    }

    @Test("A message with a number that has no JSON form is refused, and nothing is written")
    func refusesNonFiniteNumber() {
        for number in [Double.nan, .infinity, -.infinity] {
            var buffer = ByteBuffer(string: "kept")
            #expect(throws: JSONError.self) { try buffer.writeVarlinkMessage(["ok": 1, "bad": [.double(number)]]) }
            #expect(buffer == ByteBuffer(string: "kept"))
        }
    }
}
