import NavHostJSON
import NavHostWire
import Testing

@testable import NavHostService
@testable import NavHostVarlink

/// The daemon reads a `Send` read straight from json-c by name from json-c's parse (`SendParameters+Varlink.swift`),
/// and one read the general way from its `JSONObject` (`SendParameters.init(_:)` of NavHostWire): the same members.
@Suite("Reading a Send's parameters")
struct SendParametersReadingTests {
    @Test(
        "From json-c's parse and from the JSONObject, the same parameters",
        arguments: [
            #"{"intent":"onChangedFilter","arguments":{"text":"a"}}"#,
            #"{"session":"rt","screen":"s2","intent":"onTappedRetry"}"#,
            #"{"arguments":{"list":[1,{"b":null}],"n":2.5},"intent":"x","session":null,"screen":null}"#,
            #"{"intent":"onTappedProduct","arguments":{}}"#,
        ]
    )
    func sameBothWays(parameters: String) throws {
        let text = #"{"method":"io.navhost.Navigation.Send","parameters":"# + parameters + "}"
        let reader = VarlinkCallReader(maxDepth: JSONParser.defaultMaxDepth)
        let call = try #require(Array(text.utf8).withUnsafeBytes { reader.read($0) })
        #expect(call.parameterTree != nil)
        let fromTree = call.withParameterReader { SendParameters($0) }
        let fromObject = SendParameters(try JSONParser().parse(parameters).objectValue ?? [:])
        #expect(fromTree == fromObject)
    }
}
