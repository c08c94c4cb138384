import IntegrationHarness
import NavHostJSON
import Testing

// The daemon's event loop runs the main actor, where a `Send` starts in the stretch that reads it. The call runner
// keeps the route of the last method it looked up for that (`lastStartingRoute`): pipelined `Send`s find it again
// without a look-up. A call of another method must get its own, and the next `Send` the `Send`'s again.

extension DaemonProtocolTests {
    /// `Send` and `Stack` in turn, each `Send` setting the catalog's filter to `text`.
    static func sendsAndStacks(_ texts: [String]) -> [String] {
        texts.flatMap { text in
            [
                #"{"method":"io.navhost.Navigation.Send","#
                    + #""parameters":{"intent":"onChangedFilter","arguments":{"text":"\#(text)"}}}"#,
                #"{"method":"io.navhost.Navigation.Stack","parameters":{}}"#,
            ]
        }
    }

    /// Pushes the catalog, whose filter the `Send`s set, on a connection of its own: the connection under test
    /// starts with a `Send`, so that the route it keeps first is the `Send`'s.
    static func navigateToTheCatalog(_ daemon: DaemonProcess) async throws {
        let setup = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        try await setup.write(
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"products.list"}}"# + "\0"
        )
        _ = try await setup.readMessages(1)
        try await setup.close()
    }

    /// Checks that each `Send` of ``sendsAndStacks(_:)`` was answered as a `Send` and each `Stack` as a `Stack`, whose
    /// top screen holds the filter the `Send` before it set.
    static func expectEachAnsweredByItsMethod(_ messages: [String], texts: [String]) throws {
        let replies = try messages.map { try JSONParser().parse($0) }
        for (index, text) in texts.enumerated() {
            let sent = replies[2 * index]
            let stack = replies[2 * index + 1]
            #expect(sent["error"] == nil && sent["parameters"]?["revision"] != nil, "Send \(text): \(sent)")
            #expect(sent["parameters"]?["snapshot"] == nil, "Send \(text): \(sent)")
            let top = stack["parameters"]?["snapshot"]?["stack"]?.arrayValue?.last
            #expect(top?["state"]?["value"]?["filter"] == .string(text), "Stack after \(text): \(stack)")
        }
    }

    @Test("Calls of Send and Stack in turn on one connection, one at a time, each reach their own method")
    func startingRouteOneCallAtATime() async throws {
        let daemon = try await DaemonProcess.start()
        try await Self.navigateToTheCatalog(daemon)
        let raw = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        let texts = ["lamp", "desk", "shelf"]
        var messages: [String] = []
        for call in Self.sendsAndStacks(texts) {
            try await raw.write(call + "\0")
            messages += try await raw.readMessages(1)
        }
        try Self.expectEachAnsweredByItsMethod(messages, texts: texts)
        try await raw.close()
        try await daemon.terminate()
    }

    @Test("Calls of Send and Stack in turn, pipelined in one write, each reach their own method")
    func startingRoutePipelined() async throws {
        let daemon = try await DaemonProcess.start()
        try await Self.navigateToTheCatalog(daemon)
        let raw = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        let texts = ["lamp", "desk", "shelf", "stool"]
        let calls = Self.sendsAndStacks(texts)
        try await raw.write(calls.map { $0 + "\0" }.joined())
        try Self.expectEachAnsweredByItsMethod(try await raw.readMessages(calls.count), texts: texts)
        try await raw.close()
        try await daemon.terminate()
    }
}
