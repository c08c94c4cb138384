import NavHostJSON
import Testing

@testable import NavHostVarlink

@Suite("Reading a call straight from json-c")
struct CallReaderTests {
    let reader = VarlinkCallReader(maxDepth: JSONParser.defaultMaxDepth)

    /// The call `text` holds as the reader reads it; `nil` when it leaves it to the general reading.
    private func read(_ text: String) -> VarlinkCall? {
        Array(text.utf8).withUnsafeBytes { reader.read($0) }
    }

    @Test(
        "A call it reads is the call the general reading makes of the same text",
        arguments: [
            #"{"method":"io.navhost.Navigation.Send","parameters":{"intent":"onChangedFilter","arguments":{"text":"a"}}}"#,
            #"{"method":"a.b.C"}"#,
            #"{"method":"a.b.C","parameters":null}"#,
            #"{"method":"a.b.C","parameters":{}}"#,
            #"{"method":"a.b.C","oneway":null,"more":false}"#,
            #"{"method":"a.b.C","more":true}"#,
            #"{"method":"a.b.C","oneway":true}"#,
            #"{"method":"a.b.C","upgrade":true}"#,
            #"{"org.example.x":[1,{"y":2}],"method":"a.b.C"}"#,
            #" { "parameters" : { "b" : 2 , "a" : [ 1 , 2.5 , -3 , true , null , "s" , { } , [ ] ] } , "method" : "x" } "#,
            #"{"method":"a.b.C","parameters":{"big":18446744073709551614,"max":9223372036854775807,"min":-9223372036854775807}}"#,
            #"{"method":"a.b.C","parameters":{"x":1,"x":2}}"#,
            #"{"method":"a","method":"b.c.D"}"#,
            #"{"method":"a.b.C","parameters":{"f":1e3,"g":0.1,"h":-0.0}}"#,
            // Empty, short (kept in a string's two words) and long (kept in storage of their own) keys and values.
            #"{"method":"a.b.C","parameters":{"":"","fifteen-bytes-k":"fifteen-bytes-v","sixteen-bytes-ke":"sixteen-bytes-va"}}"#,
        ]
    )
    func readsAsTheGeneralReading(text: String) throws {
        let general = try VarlinkCall(parsing: JSONParser().parse(text))
        let call = try #require(read(text))
        #expect(call == general)
        #expect(call.parameters.keys == general.parameters.keys)
        // Parameters with members stay json-c's; none, `null` and `{}` are no parameters.
        #expect((call.parameterTree != nil) == !general.parameters.isEmpty)
    }

    @Test("A call's parameters outlive its message, the tokener's next parse, and the thread that read it")
    func parametersOutliveTheParse() async throws {
        let first = try #require(
            read(#"{"method":"a.b.C","parameters":{"text":"first","list":[1,{"k":"v"}],"object":{"n":null}}}"#)
        )
        let second = try #require(read(#"{"method":"a.b.C","parameters":{"text":"second","other":[true]}}"#))
        #expect(first.parameters == ["text": "first", "list": [1, ["k": "v"]], "object": ["n": .null]])
        #expect(second.withParameterReader { $0.string("text") } == "second")
        // Read, then let go, on another thread: the last reference puts the tree back there.
        let elsewhere = await Task.detached { [first] in first.withParameterReader { $0.object("object") } }.value
        #expect(elsewhere == ["n": .null])
        #expect(first.withParameterReader { $0.string("text") } == "first")
    }

    @Test(
        "What is not plain ASCII, not JSON, or not a call is left to the general reading",
        arguments: [
            "", " ", "[]", "1", #""method""#, "{", #"{"method":"a.b.C"} x"#, #"{"method":"a.b.C"}{}"#,
            #"{"method":"a.b.C","parameters":{"t":"\u00e9"}}"#, #"{"method":"a.b.C","parameters":{"t":"é"}}"#,
            #"{"method":"a.b.C","parameters":{"a\u0000b":1}}"#, #"{"method":"a.b\"C"}"#,
            #"{"parameters":{}}"#, #"{"method":["a"]}"#, #"{"method":"a.b.C","oneway":1}"#,
            #"{"method":"a.b.C","parameters":"x"}"#, #"{"method":"a.b.C","parameters":[]}"#,
            #"{"method":"a.b.C","oneway":true,"upgrade":true}"#, #"{"method":"a.b.C","more":true,"oneway":true}"#,
            #"{"method":"a.b.C","id":7}"#, #"{"method":"a.b.C","parameters":{"x":1e999}}"#,
            #"{"method":"a.b.C","parameters":{"x":NaN}}"#, #"{"method":"a.b.C",}"#,
            #"{"method":"a.b.C","org.example.x":NaN}"#, #"{"method":"a.b.C","org.example.x":[1e400]}"#,
            // json-c reads an integer beyond either limit as that limit: the general reading looks at the text.
            #"{"method":"a.b.C","parameters":{"min":-9223372036854775808}}"#,
            #"{"method":"a.b.C","parameters":{"x":[-9223372036854775809]}}"#,
            #"{"method":"a.b.C","parameters":{"big":18446744073709551615}}"#,
            #"{"method":"a.b.C","org.example.x":18446744073709551616}"#,
            // json-c takes a key in single quotes, which the general reading refuses.
            #"{'method':"a.b.C"}"#, #"{"method":"a.b.C","parameters":{'x':1}}"#,
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
            #"{"method":"a.b.C","parameters":{"x":"# + String(repeating: "[", count: 70)
                + String(repeating: "]", count: 70) + "}}",
        ]
    )
    func leavesTheRest(text: String) {
        #expect(read(text) == nil)
    }

    @Test("A refused message leaves the reader able to read the next one; a NUL terminator is taken off")
    func readsOnAfterARefusal() throws {
        #expect(read(#"{"method":"a.b.C""#) == nil)
        #expect(read(#"{"method":[}"#) == nil)
        #expect(read(#"{"method":"a.b.C"}"#) == VarlinkCall(method: "a.b.C"))
        let terminated = Array(#"{"method":"a.b.C"}"#.utf8) + [0]
        #expect(terminated.withUnsafeBytes { reader.read($0) } == VarlinkCall(method: "a.b.C"))
    }

    @Test("A message over 64 KiB is left to the general reading")
    func leavesLargeMessages() {
        let text = #"{"method":"a.b.C","parameters":{"x":""# + String(repeating: "a", count: 64 * 1024) + #""}}"#
        #expect(read(text) == nil)
    }
}
