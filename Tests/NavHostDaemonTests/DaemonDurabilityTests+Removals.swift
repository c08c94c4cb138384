import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// Every call that takes screens off a stack, each killed right after its own reply: `randomKills` covers them at
// random, and at its seed no kill came right after a PopTo or a Dismiss. A session's record is written whole, so a
// later call's write would cover one that never wrote: each call here is the last before its kill.

extension DaemonDurabilityTests {
    /// A call that takes screens off the stack: its method and parameters, the calls that build the stack it starts
    /// from (above `home.main`), and the routes it leaves.
    private struct Removal {
        var method: String
        var setUp: [(String, JSONObject)]
        var parameters: JSONObject
        var leaves: [String]
    }

    private static let removals: [Removal] = [
        Removal(
            method: "PopTo",
            setUp: [
                ("Navigate", ["route": "settings.main"]), ("Navigate", ["route": "products.list"]),
                ("Navigate", ["route": "profile.user", "parameters": ["userID": "u1"]]),
            ],
            parameters: ["route": "settings.main"],
            leaves: ["home.main", "settings.main"]
        ),
        Removal(
            method: "Dismiss",
            setUp: [
                ("Navigate", ["route": "settings.main"]), ("Present", ["route": "products.list"]),
                ("Navigate", ["route": "profile.user", "parameters": ["userID": "u1"]]),
            ],
            parameters: [:],
            leaves: ["home.main", "settings.main"]
        ),
        Removal(
            // The ViewModel's own `router.pop()` (EditProfileViewModel.onTappedCancel).
            method: "Send",
            setUp: [
                ("Navigate", ["route": "profile.user", "parameters": ["userID": "u1"]]),
                ("Navigate", ["route": "profile.edit", "parameters": ["userID": "u1"]]),
            ],
            parameters: ["intent": "onTappedCancel"],
            leaves: ["home.main", "profile.user"]
        ),
    ]

    @Test("PopTo, Dismiss and a Send whose intent pops its own screen each survive kill -9 right after their reply")
    func removalsSurviveKill() async throws {
        let daemon = try await DaemonProcess.start(sessions: ["main=home.main"], extraArguments: Self.slowSessionWrites)
        // The record is queued for the writer before the reply, so a reply that did not wait for it is caught only
        // when the kill comes before the write. Before the writes were slowed (`slowSessionWrites`, session 56), with
        // PopTo's and Dismiss's `commit` taken out, one round caught Dismiss's in 3 of 4 runs and PopTo's in 1 of 4;
        // slowed, with those and Send's taken out, every round of two runs caught all three. Four rounds.
        for round in 0..<4 {
            for removal in Self.removals {
                try await Self.removeThenKill(removal, round: round, in: daemon)
            }
        }
        try await daemon.terminate()
    }

    private static func removeThenKill(_ removal: Removal, round: Int, in daemon: DaemonProcess) async throws {
        var nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("PopToRoot")
        for (method, parameters) in removal.setUp { try await nav.call(method, parameters) }
        let before = Self.stackIdentity(try await nav.snapshot())
        let reply = try await nav.call(removal.method, removal.parameters)
        let expected: Expected
        if removal.method == "Send" {
            // A Send's reply carries the screen it went to, none once its intent closed it: it names nothing removed.
            #expect(reply["screen"] == nil, "\(removal.method), round \(round): the intent closed its screen")
            expected = Expected(stack: Array(before.stack.dropLast()))
        } else {
            expected = before.after(reply)
        }
        #expect(
            expected.stack.map { $0["route"] } == removal.leaves.map { .string($0) },
            "\(removal.method), round \(round)"
        )
        try await daemon.crash()
        try await daemon.restart()

        nav = try await NavigationClient.connect(to: daemon)
        let after = try await nav.snapshot()
        // Each screen's presentation is compared too: none is left in the modal layer.
        #expect(Self.stackIdentity(after) == expected, "\(removal.method), round \(round): what its reply acknowledged")
    }
}
