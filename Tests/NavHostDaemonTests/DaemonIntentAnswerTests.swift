import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

@Suite("Every intent the daemon receives is answered")
struct DaemonIntentAnswerTests {
    /// `onTappedRetry` reloads the catalog through a nonisolated data source: its work leaves the main actor and
    /// comes back while the connection's task waits on the main actor for it. Alternating it with `onChangedFilter`,
    /// which finishes on the spot, once lost an answer every few hundred to few thousand calls.
    @Test("Thousands of alternating onChangedFilter and onTappedRetry Sends on one connection are all answered")
    func alternatingSendsAreAllAnswered() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=products.list"])
        let nav = try await NavigationClient.connect(to: daemon)
        for call in 0..<Self.calls {
            let parameters: JSONObject =
                call.isMultiple(of: 2)
                ? ["intent": "onChangedFilter", "arguments": ["text": .string("q\(call)")]]
                : ["intent": "onTappedRetry"]
            let reply: JSONObject
            do {
                reply = try await Self.send(parameters, on: nav, within: .seconds(10))
            } catch let error as TimedOut {
                // A graceful stop would wait for the unanswered call.
                Issue.record("call \(call): \(error)\n\(daemon.log.suffix(2_000))")
                try await daemon.crash()
                return
            }
            try #require(reply.revision != nil, "call \(call) answered \(reply)")
        }
        #expect(try await nav.topState()["status"] == "loaded")
        try await daemon.terminate()
    }

    private static let calls = 4_000

    /// Sends an intent and waits at most `limit` for its answer. A call still waiting then is failed by closing the
    /// connection, so the test ends instead of hanging.
    private static func send(
        _ parameters: JSONObject,
        on nav: NavigationClient,
        within limit: Duration
    ) async throws -> JSONObject {
        enum Bounded: Sendable {
            case answered(Result<JSONObject, any Error>)
            case timedOut
        }
        return try await withThrowingTaskGroup(of: Bounded.self) { group in
            group.addTask {
                do {
                    return .answered(.success(try await nav.call("Send", parameters)))
                } catch {
                    return .answered(.failure(error))
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return .timedOut
            }
            defer { group.cancelAll() }
            switch try await group.next() {
            case .answered(let result):
                return try result.get()
            case .timedOut, nil:
                try? await nav.close()
                throw TimedOut(what: "the answer to Send \(parameters)")
            }
        }
    }
}
