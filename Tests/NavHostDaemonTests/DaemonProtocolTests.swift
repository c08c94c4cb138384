import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

@Suite("The daemon's Varlink protocol over its real socket")
struct DaemonProtocolTests {
    @Test("GetInfo names the vendor, the product, the version navctl and the SDK give, and the installed documentation")
    func getInfo() async throws {
        let daemon = try await DaemonProcess.start()
        let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let info = try await client.call("org.varlink.service.GetInfo", parameters: [:])
        let version = try await ChildProcess.run(TestPaths.builtExecutable("navctl"), ["--version"])
        #expect(info["vendor"] == "NavHost")
        #expect(info["product"] == "navhostd")
        #expect(version.output == "navctl \(info["version"]?.stringValue ?? "?")\n", "\(info)")
        #expect(info["url"] == "file:///usr/share/doc/navhost/README.md")
        #expect(info["interfaces"]?.arrayValue?.contains("io.navhost.Navigation") == true)
        try await daemon.terminate()
    }

    @Test("A call split into single bytes, and several calls in one write, are each answered in order")
    func splitAndBatchedWrites() async throws {
        let daemon = try await DaemonProcess.start()
        let raw = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        let call = #"{"method":"io.navhost.Navigation.Stack","parameters":{}}"#
        for byte in Array(call.utf8) + [0] { try await raw.write(bytes: [byte]) }
        let first = try await raw.readMessages(1)
        #expect(first[0].contains(#""route":"home.main""#))

        let batch = [
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"products.list"}}"#,
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"settings.main"}}"#,
            #"{"method":"io.navhost.Navigation.Pop","parameters":{}}"#,
            #"{"method":"io.navhost.Navigation.Stack","parameters":{}}"#,
        ].map { $0 + "\0" }.joined()
        try await raw.write(batch)
        let replies = try await raw.readMessages(4).map { try JSONParser().parse($0) }
        let revisions = replies.prefix(3).compactMap { $0["parameters"]?["revision"]?.intValue }
        #expect(revisions.count == 3)
        #expect(revisions == revisions.sorted() && Set(revisions).count == 3, "pipelined replies in call order")
        #expect(replies[0]["parameters"]?["screen"]?["route"] == "products.list")
        #expect(replies[2]["parameters"]?["removed"]?.arrayValue?.count == 1)
        let stack = replies[3]["parameters"]?["snapshot"]?["stack"]?.arrayValue?.compactMap { $0["route"]?.stringValue }
        #expect(stack == ["home.main", "products.list"])

        // A call answered at once (its reply written straight into the batch), then one refused at once: before, the
        // refusal's reply was lost from the batch, and each later reply answered the call before it.
        let filter =
            #"{"method":"io.navhost.Navigation.Send","#
            + #""parameters":{"intent":"onChangedFilter","arguments":{"text":"a"}}}"#
        try await raw.write(filter + "\0")
        _ = try await raw.readMessages(1)
        // The same filter again: nothing to write, answered in the stretch that reads it.
        let mixed = [
            filter,
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"no.such"}}"#,
            #"{"method":"io.navhost.Navigation.Stack","parameters":{}}"#,
        ].map { $0 + "\0" }.joined()
        try await raw.write(mixed)
        let answers = try await raw.readMessages(3).map { try JSONParser().parse($0) }
        #expect(answers.map { $0["error"]?.stringValue } == [nil, "io.navhost.Navigation.RouteNotFound", nil])
        #expect(answers[0]["parameters"]?["revision"] != nil, "\(answers)")
        #expect(answers[2]["parameters"]?["snapshot"] != nil, "\(answers)")
        try await raw.close()
        try await daemon.terminate()
    }

    @Test("A oneway call gets no reply but takes effect")
    func onewayCall() async throws {
        let daemon = try await DaemonProcess.start()
        let raw = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        try await raw.write(
            #"{"method":"io.navhost.Navigation.Navigate","parameters":{"route":"settings.main"},"oneway":true}"#
                + "\0" + #"{"method":"io.navhost.Navigation.Stack","parameters":{}}"# + "\0"
        )
        let replies = try await raw.readMessages(1)
        #expect(replies[0].contains(#""snapshot""#), "the only reply is Stack's")
        #expect(replies[0].contains(#""route":"settings.main""#))
        try await daemon.terminate()
    }

    @Test(
        "Every refusal comes back as its typed error, and the stack does not change",
        arguments: [
            ("Stack", #"{"session":"nope"}"#, "io.navhost.Navigation.SessionNotFound", #"{"session":"nope"}"#),
            (
                "Navigate", #"{"route":"nowhere.main"}"#, "io.navhost.Navigation.RouteNotFound",
                #"{"route":"nowhere.main"}"#
            ),
            ("Navigate", #"{"route":"products.detail"}"#, "io.navhost.Navigation.InvalidRouteParameters", nil),
            (
                "Send", #"{"intent":"onTappedNothing"}"#, "io.navhost.Navigation.IntentNotFound",
                #"{"intent":"onTappedNothing","intents":["onTappedProducts","onTappedProfile","onTappedSettings"]}"#
            ),
            (
                "Send", #"{"screen":"s404","intent":"onTappedProducts"}"#, "io.navhost.Navigation.ScreenNotFound",
                #"{"screen":"s404"}"#
            ),
            ("Pop", "{}", "io.navhost.Navigation.CannotPopRoot", "{}"),
            ("Dismiss", "{}", "io.navhost.Navigation.NoModalPresented", "{}"),
            (
                "PopTo", #"{"route":"products.list"}"#, "io.navhost.Navigation.RouteNotOnStack",
                #"{"route":"products.list"}"#
            ),
            // The root shows home.main, but not with these: the error names them.
            (
                "PopTo", #"{"route":"home.main","parameters":{"x":1}}"#, "io.navhost.Navigation.RouteNotOnStack",
                #"{"route":"home.main","parameters":{"x":1}}"#
            ),
            ("Replace", #"{"routes":[]}"#, "io.navhost.Navigation.EmptyStack", "{}"),
            ("Navigate", #"{"route":42}"#, "org.varlink.service.InvalidParameter", #"{"parameter":"route"}"#),
            ("Navigate", "{}", "org.varlink.service.InvalidParameter", #"{"parameter":"route"}"#),
            ("Teleport", "{}", "org.varlink.service.MethodNotFound", nil),
        ] as [(String, String, String, String?)]
    )
    func typedErrors(method: String, parameters: String, error: String, errorParameters: String?) async throws {
        let daemon = try await DaemonProcess.start()
        let raw = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        let stack = #"{"method":"io.navhost.Navigation.Stack","parameters":{}}"# + "\0"
        try await raw.write(stack)
        let before = try await raw.readMessages(1)[0]
        try await raw.write(#"{"method":"io.navhost.Navigation.\#(method)","parameters":\#(parameters)}"# + "\0")
        let reply = try JSONParser().parse(try await raw.readMessages(1)[0])
        #expect(reply["error"] == .string(error))
        if let errorParameters {
            // An error without parameters may leave "parameters" out.
            #expect((reply["parameters"] ?? [:]) == (try JSONParser().parse(errorParameters)))
        }
        try await raw.write(stack)
        #expect(try await raw.readMessages(1)[0] == before, "nothing changed")
        try await daemon.terminate()
    }

    @Test("Invalid JSON closes that connection; another client goes on being answered")
    func protocolViolationClosesOnlyThatConnection() async throws {
        let daemon = try await DaemonProcess.start()
        let bad = try await RawVarlinkConnection.connect(to: daemon.socketPath)
        let good = try await NavigationClient.connect(to: daemon)
        try await bad.write("{this is not json\0")
        _ = try await bad.readUntilClosed()
        #expect(try await good.routes() == ["home.main"])
        try await daemon.terminate()
    }
}
