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
}
