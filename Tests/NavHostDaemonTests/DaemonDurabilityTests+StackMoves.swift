import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// Every way a call moves a session's stack, each killed right after its own reply: `Navigate`, `Present`, `Pop`,
// `PopTo`, `PopToRoot`, `Dismiss` and `Replace`, and a `Send` whose intent calls each of the Router's operations as a
// ViewModel does (the Hops fixture's intents: navigate, present, dismiss, replace, popTo, popToRoot, pop). The kills
// of `randomKills` and `mixedKills` come at random moments: at `randomKills`' seed none came right after a `PopTo`
// or a `Dismiss` (session 54) and one each after a `PopToRoot` and a `Replace`, and no example plugin has an intent
// that presents, dismisses, replaces or pops more than its own screen (session 56). Each call here is the last before
// its kill: a later call's write would cover one that never wrote.

extension DaemonDurabilityTests {
    /// A call that moves the stack: the calls that build the stack it starts from (above `hops.base`: a `Navigate`
    /// to a page by its name, a `Present` of the sheet), the call, and the screens it leaves (``shape(_:)``). The
    /// stack it starts from is built with `Navigate` and `Present`, so that a fault of another call's alone leaves it
    /// durable; a fault of theirs makes the cases they build pass, and their own cases fail.
    private struct StackMove {
        var name: String
        var setUp: [(method: String, name: String?)]
        var method: String
        var parameters: JSONObject
        var leaves: [String]
        /// How many screens at the bottom of the stack stay as they were, IDs included (a replace makes new ones).
        var keeps: Int
    }

    private static let stackMoves: [StackMove] = [
        StackMove(
            name: "an intent that pushes",
            setUp: [],
            method: "Send",
            parameters: ["intent": "onTappedPage", "arguments": ["name": "a"]],
            leaves: ["hops.base", "a"],
            keeps: 1
        ),
        StackMove(
            name: "an intent that presents",
            setUp: [("Navigate", "a")],
            method: "Send",
            parameters: ["intent": "onTappedSheet"],
            leaves: ["hops.base", "a", "hops.sheet modal"],
            keeps: 2
        ),
        StackMove(
            name: "an intent that dismisses",
            setUp: [("Navigate", "a"), ("Present", nil), ("Navigate", "b")],
            method: "Send",
            parameters: ["intent": "onTappedDismiss"],
            leaves: ["hops.base", "a"],
            keeps: 2
        ),
        StackMove(
            name: "an intent that replaces the stack",
            setUp: [("Navigate", "a"), ("Navigate", "b")],
            method: "Send",
            parameters: ["intent": "onTappedReplace", "arguments": ["name": "c"]],
            leaves: ["hops.base", "c"],
            keeps: 0
        ),
        StackMove(
            name: "an intent that pops to a route",
            setUp: [("Navigate", "a"), ("Navigate", "b"), ("Navigate", "c")],
            method: "Send",
            parameters: ["intent": "onTappedBackTo", "arguments": ["name": "a"]],
            leaves: ["hops.base", "a"],
            keeps: 2
        ),
        StackMove(
            name: "an intent that pops to the root",
            setUp: [("Navigate", "a"), ("Present", nil)],
            method: "Send",
            parameters: ["intent": "onTappedHome"],
            leaves: ["hops.base"],
            keeps: 1
        ),
        StackMove(
            name: "Navigate",
            setUp: [],
            method: "Navigate",
            parameters: ["route": "hops.page", "parameters": ["name": "a"]],
            leaves: ["hops.base", "a"],
            keeps: 1
        ),
        StackMove(
            name: "Present",
            setUp: [("Navigate", "a")],
            method: "Present",
            parameters: ["route": "hops.sheet"],
            leaves: ["hops.base", "a", "hops.sheet modal"],
            keeps: 2
        ),
        StackMove(
            name: "an intent that pops its own screen",
            setUp: [("Navigate", "a"), ("Navigate", "b")],
            method: "Send",
            parameters: ["intent": "onTappedBack"],
            leaves: ["hops.base", "a"],
            keeps: 2
        ),
        StackMove(
            name: "PopTo",
            setUp: [("Navigate", "a"), ("Navigate", "b"), ("Navigate", "c")],
            method: "PopTo",
            parameters: ["route": "hops.page", "parameters": ["name": "a"]],
            leaves: ["hops.base", "a"],
            keeps: 2
        ),
        StackMove(
            name: "Dismiss",
            setUp: [("Navigate", "a"), ("Present", nil), ("Navigate", "b")],
            method: "Dismiss",
            parameters: [:],
            leaves: ["hops.base", "a"],
            keeps: 2
        ),
        StackMove(
            name: "Pop",
            setUp: [("Navigate", "a"), ("Navigate", "b")],
            method: "Pop",
            parameters: [:],
            leaves: ["hops.base", "a"],
            keeps: 2
        ),
        StackMove(
            name: "PopToRoot",
            setUp: [("Navigate", "a"), ("Navigate", "b")],
            method: "PopToRoot",
            parameters: [:],
            leaves: ["hops.base"],
            keeps: 1
        ),
        StackMove(
            name: "Replace",
            setUp: [("Navigate", "a")],
            method: "Replace",
            parameters: [
                "routes": [["route": "hops.base"], ["route": "hops.page", "parameters": ["name": "d"]]]
            ],
            leaves: ["hops.base", "d"],
            keeps: 0
        ),
    ]

    @Test("Every call that moves the stack, and a Send per Router operation, survives kill -9 right after its reply")
    func stackMovesSurviveKill() async throws {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["HopsPlugin"]),
            sessions: ["main=hops.base"],
            extraArguments: Self.slowStateWrites
        )
        // Two rounds: the writes are slowed (`slowStateWrites`), so a reply that did not wait for its write is
        // caught by the kill right after it, unless the kill comes more than 50 ms late.
        for round in 0..<2 {
            for move in Self.stackMoves {
                try await Self.moveThenKill(move, round: round, in: daemon)
            }
        }
        try await daemon.terminate()
    }

    private static func moveThenKill(_ move: StackMove, round: Int, in daemon: DaemonProcess) async throws {
        var nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("PopToRoot")
        for (method, name) in move.setUp {
            var parameters: JSONObject = ["route": "hops.sheet"]
            if let name { parameters = ["route": "hops.page", "parameters": ["name": .string(name)]] }
            try await nav.call(method, parameters)
        }
        let before = Self.stackIdentity(try await nav.snapshot())
        let reply = try await nav.call(move.method, move.parameters)
        // Killed at once, nothing read in between: a reply that did not wait for its write is caught when the kill
        // comes before the write.
        try await daemon.crash()
        try await daemon.restart()

        nav = try await NavigationClient.connect(to: daemon)
        let after = Self.stackIdentity(try await nav.snapshot())
        #expect(
            after.stack.map(Self.shape) == move.leaves,
            "\(move.name), round \(round): what its reply acknowledged (\(reply))"
        )
        // The screens it keeps are the ones from before, with their IDs, parameters and presentations.
        #expect(
            after.stack.prefix(move.keeps).elementsEqual(before.stack.prefix(move.keeps)),
            "\(move.name), round \(round): \(before) became \(after)"
        )
        if move.method == "Send" {
            // A Send's reply carries the screen that handled the intent, none once the intent closed it.
            let handler = before.stack.last?["id"]
            let closedIt = !after.stack.contains { $0["id"] == handler }
            #expect((reply["screen"] == nil) == closedIt, "\(move.name), round \(round): \(reply)")
        } else {
            // The other calls' replies name the screen pushed, the screens removed, or the stack made: whole.
            #expect(after == before.after(reply), "\(move.name), round \(round): what its reply acknowledged")
        }
    }

    /// A screen as the moves' `leaves` name it: a page by its name, another screen by its route, `modal` after one
    /// presented.
    private static func shape(_ screen: JSONValue) -> String {
        let name = screen["parameters"]?["name"]?.stringValue ?? screen["route"]?.stringValue ?? "?"
        return screen["presentation"] == "modal" ? "\(name) modal" : name
    }
}
