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

    @Test("An intent whose navigation the daemon refuses is answered with the refusal, not as done")
    func refusedNavigationFailsTheIntent() async throws {
        let daemon = try await DaemonProcess.start(
            sessions: ["main=products.list"],
            extraArguments: ["--max-stack-depth", "2"]
        )
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "products.detail", "parameters": ["productID": "p1"]])
        let before = try await nav.snapshot()

        // The seller's profile would be a third screen.
        let refused = await #expect(throws: VarlinkError.self) {
            try await nav.call("Send", ["intent": "onTappedSeller"])
        }

        #expect(refused?.name == "io.navhost.Navigation.IntentFailed", "\(String(describing: refused))")
        #expect(refused?.parameters["refusedNavigation"] == "StackTooDeep")
        #expect(try await nav.snapshot()["revision"] == before["revision"], "nothing changed")
        #expect(try await nav.routes() == ["products.list", "products.detail"])
        try await daemon.terminate()
    }

    @Test("A ViewModel that pops a screen it did not open, above its own, is refused (ScreenNotOnTop); it stays")
    func popFromBelowTheTopIsRefused() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main"])
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "profile.edit", "parameters": ["userID": "u1"]])
        try await nav.call("Navigate", ["route": "products.list"])
        let ids = try await nav.snapshot()["stack"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        try #require(ids.count == 3)

        // The edit screen's cancel pops: with the product list above it, that pop would close the list.
        let refused = await #expect(throws: VarlinkError.self) {
            try await nav.call("Send", ["screen": .string(ids[1]), "intent": "onTappedCancel"])
        }

        #expect(refused?.name == "io.navhost.Navigation.IntentFailed", "\(String(describing: refused))")
        #expect(refused?.parameters["refusedNavigation"] == "ScreenNotOnTop")
        #expect(refused?.parameters["screen"] == .string(ids[1]))
        #expect(try await nav.routes() == ["home.main", "profile.edit", "products.list"])
        // On top, the same intent pops it.
        try await nav.call("Pop")
        try await nav.call("Send", ["intent": "onTappedCancel"])
        #expect(try await nav.routes() == ["home.main"])
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
