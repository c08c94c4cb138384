import Foundation
import IntegrationHarness
import NavHostFuzzing
import Testing

/// The fuzzer's seed corpus, and every crash it found (kept in the corpus), replayed through the same driver on
/// every test run: each input must be served, in time, with replies the oracle accepts.
///
/// One input at a time: each is served on the main actor within ``VarlinkFuzzing/timeLimit``, and its 76 inputs
/// started at once (`swift test --parallel` with no width) shared that one thread and all ran out of time together.
@Suite("The fuzz corpus, replayed", .serialized)
struct CorpusReplayTests {
    static let corpusDirectory = "\(TestPaths.packageRoot)/Tests/Fuzz/Corpus"

    static var corpusFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpusDirectory)) ?? []).sorted()
    }

    @Test("The corpus holds the seeds")
    func corpusIsThere() {
        #expect(Self.corpusFiles.count >= 30)
    }

    @Test("Each corpus input is served with correct replies", arguments: corpusFiles)
    func replay(_ name: String) async throws {
        let input = try #require(FileManager.default.contents(atPath: "\(Self.corpusDirectory)/\(name)"))
        let report = try await withTimeout(VarlinkFuzzing.timeLimit, "\(name) to be served") {
            try await VarlinkFuzzing.run(Array(input))
        }
        #expect(report.violations == [], "\(name)")
    }

    @Test("The oracle holds the json-c reader's calls to the general reading's, fractions for int fields included")
    func readerIsComparedWithTheGeneralReading() async throws {
        let name = "number-fraction-for-int-parameter"
        let input = try #require(FileManager.default.contents(atPath: "\(Self.corpusDirectory)/\(name)"))
        let report = try await VarlinkFuzzing.run(Array(input))
        // Its four calls are plain ASCII, under the depth limit: the reader reads each, and the oracle compares it.
        #expect(report.callsComparedWithTheReader == 4, "\(name)")
        #expect(report.violations == [], "\(name)")
    }
}

@Suite("The fuzz driver")
struct FuzzDriverTests {
    @Test("Pipelined calls to every interface are all answered")
    func pipelinedCalls() async throws {
        let input = [
            #"{"method":"org.varlink.service.GetInfo"}"#,
            #"{"method":"io.navhost.Navigation.Sessions"}"#,
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"shop.detail","parameters":{"productID":"p1"}}}"#,
            #"{"method":"io.navhost.Plugins.List"}"#,
        ].map { $0 + "\0" }.joined()
        let report = try await VarlinkFuzzing.run(Array(input.utf8))
        #expect(report.violations == [])
        #expect(report.finalReplies == 4)
    }

    @Test("A Watch with more ends when the sessions restart, and the calls after it run on the fresh sessions")
    func watchThenMore() async throws {
        let input = [
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"shop.cart"}}"#,
            #"{"method":"io.navhost.Navigation.Watch","more":true}"#,
            #"{"method":"io.navhost.Navigation.Pop"}"#,
        ].map { $0 + "\0" }.joined()
        let report = try await VarlinkFuzzing.run(Array(input.utf8))
        #expect(report.violations == [])
        #expect(report.finalReplies == 3)
    }

    /// The seeds reach the handlers behind the access check: a host that let uid 0 control Navigation but not
    /// Plugins answered Load, Reload and Unload with PermissionDenied, so their handlers were never fuzzed.
    @Test(
        "The session, recording and plugin-control seeds reach their handlers",
        arguments: [
            (
                "batch-plugins-control",
                [
                    "io.navhost.Plugins.PluginRefused", "io.navhost.Plugins.PluginRefused",
                    "io.navhost.Plugins.PluginRefused", "org.varlink.service.InvalidParameter",
                ]
            ),
            (
                "batch-session-lifecycle",
                ["io.navhost.Navigation.SessionConfigured", "io.navhost.Navigation.SessionConfigured"]
            ),
            ("call-replay", []),
            // The second is the recorded call's outcome, inside the Recording reply.
            ("call-recording", ["io.navhost.Navigation.IntentNotFound", "IntentNotFound"]),
        ]
    )
    func seedsReachHandlers(_ name: String, errors: [String]) async throws {
        let path = "\(CorpusReplayTests.corpusDirectory)/\(name)"
        let input = try #require(FileManager.default.contents(atPath: path))
        let report = try await VarlinkFuzzing.run(Array(input))
        #expect(report.violations == [])
        let answered = report.messages.compactMap { message in
            message.firstRange(of: #""error":""#).map { start in
                String(message[start.upperBound...].prefix { $0 != "\"" })
            }
        }
        #expect(answered == errors, "\(report.messages)")
    }

    @Test("The oracle notices a missing reply")
    func oracleNoticesMissingReply() async throws {
        // The oracle expects a reply for every call; a truncated tail breaks the protocol, so none is missing.
        let report = try await VarlinkFuzzing.run(Array((#"{"method":"org.varlink.service.GetInfo"}"# + "\0{").utf8))
        #expect(report.inputBreaksProtocol)
        #expect(report.violations == [])
    }
}

@Suite("Bugs the fuzzer found, through the daemon's handlers")
struct FuzzRegressionTests {
    /// `Tests/Fuzz/Corpus/regression-jsonobject-*`: `JSONObject` went through swift-collections' own Codable form, an
    /// array of alternating keys and values. Route parameters and intent arguments were refused with
    /// `InvalidParameter`, handlers returning a `JSONObject` answered with the internal error, and screens'
    /// parameters went out as arrays.
    @Test("Route parameters and intent arguments are accepted, and replies carry objects where the interface says so")
    func jsonObjectMembers() async throws {
        let input = [
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"shop.detail","parameters":{"productID":"p1"}}}"#,
            #"{"method":"io.navhost.Navigation.Send","parameters":{"intent":"onChangedQuantity","arguments":{"quantity":4}}}"#,
            #"{"method":"io.navhost.Navigation.Replace","parameters":{"routes":[{"route":"shop.list"},{"route":"shop.detail","parameters":{"productID":"p2"}}]}}"#,
            #"{"method":"io.navhost.Navigation.Stack"}"#,
        ].map { $0 + "\0" }.joined()
        let report = try await VarlinkFuzzing.run(Array(input.utf8))
        #expect(report.violations == [])
        #expect(report.messages.count == 4)
        #expect(report.messages.allSatisfy { !$0.contains(#""error""#) }, "\(report.messages)")
        #expect(report.messages[0].contains(#""parameters":{"productID":"p1"}"#), "\(report.messages[0])")
        #expect(report.messages[3].contains(#""parameters":{"productID":"p2"}"#), "\(report.messages[3])")
    }
}
