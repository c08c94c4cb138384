import IntegrationHarness
import Testing

// An `int` parameter is a signed 64-bit integer. The JSON layer reads a larger integer, or a smaller one, as a double,
// rounded to 53 bits (UInt64.max becomes 2^64): the call is refused with InvalidParameter naming the parameter, as any
// value of the wrong type is, and its handler never sees the rounded number. (json-c alone reads an integer below
// Int64.min as Int64.min: the handler saw that.)

extension ServerTests {
    /// The reply that refuses a call for its parameter at `path`.
    static func refusal(naming path: String) -> String {
        #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"\#(path)"}}"#
    }

    @Test(
        "An int above Int64.max or below Int64.min is refused with InvalidParameter naming it; the limits are echoed",
        arguments: [
            ("9223372036854775807", #"{"parameters":{"text":"n","count":9223372036854775807}}"#),
            ("-9223372036854775808", #"{"parameters":{"text":"n","count":-9223372036854775808}}"#),
            ("9223372036854775808", ServerTests.refusal(naming: "count")),
            ("9223372036854777856", ServerTests.refusal(naming: "count")),
            ("18446744073709549568", ServerTests.refusal(naming: "count")),
            ("18446744073709551615", ServerTests.refusal(naming: "count")),
            ("18446744073709551616", ServerTests.refusal(naming: "count")),
            ("1e19", ServerTests.refusal(naming: "count")),
            ("-9223372036854775809", ServerTests.refusal(naming: "count")),
            ("-100000000000000000000000", ServerTests.refusal(naming: "count")),
        ]
    )
    func intBeyondInt64(count: String, reply: String) async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            for method in ["Echo", "EchoStarted"] {
                try await connection.write(
                    #"{"method":"org.navhost.test.\#(method)","parameters":{"text":"n","count":\#(count)}}"# + "\0"
                )
                #expect(try await connection.readMessages(1) == [reply], "\(method)")
            }
        }
    }
}
