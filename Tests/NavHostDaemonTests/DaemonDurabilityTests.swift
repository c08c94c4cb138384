import Glibc
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

@Suite("Acknowledged navigation survives kill -9")
struct DaemonDurabilityTests {
    /// What a session must look like after a restart: route IDs and parameters of the stack (the Settings
    /// preferences, kept in the feature's own store, have a test of their own: `featureStoreSurvivesKill`).
    struct Expected: Equatable, CustomStringConvertible {
        var stack: [JSONValue]
        var description: String { stack.map(\.description).joined(separator: " / ") }

        /// The stack after a change whose reply is `reply`: the screen a push shows (`screen`), the screens a pop
        /// removed (`removed`), or the stack a replace made (`stack`).
        func after(_ reply: JSONObject) -> Expected {
            if let screen = reply["screen"] { return Expected(stack: stack + [screenIdentity(screen)]) }
            if let replaced = reply["stack"]?.arrayValue { return Expected(stack: replaced.map(screenIdentity)) }
            let removed = reply["removed"]?.arrayValue ?? []
            return Expected(stack: stack.filter { !removed.contains($0["id"] ?? .null) })
        }
    }

    static func stackIdentity(_ snapshot: JSONValue) -> Expected {
        Expected(stack: (snapshot["stack"]?.arrayValue ?? []).map(screenIdentity))
    }

    /// navhostd's test hook that makes each write of the state folder's files wait 50 ms before it begins: a kill -9
    /// right after a reply that did not wait for its write then comes before the write, whatever the writer's speed,
    /// where without it the kill catches such a reply only when it beats the write (`DelayedDiskWrites`). A kill that
    /// comes more than 50 ms after the reply (a machine busy with parallel tests) misses it, hence two rounds or more.
    static let slowStateWrites = ["--enable-test-hooks", "--test-state-write-delay", "50"]

    /// What of a screen must come back: its ID, route, parameters and presentation (a `Present`ed screen that came
    /// back pushed would show, and dismiss, as another; until session 54 only `mixedKills` checked it).
    static func screenIdentity(_ screen: JSONValue) -> JSONValue {
        [
            "id": screen["id"] ?? .null, "route": screen["route"] ?? .null,
            "parameters": screen["parameters"] ?? .null, "presentation": screen["presentation"] ?? .null,
        ]
    }

    @Test(
        "About 1,000 random changes (Navigate, Present, Pop, PopToRoot, PopTo, Dismiss, Replace) with at least 20 kill -9s lose no acknowledged change"
    )
    func randomKills() async throws {
        var random = SeededRandom(seed: 20_261_121)
        let daemon = try await DaemonProcess.start()
        var nav = try await NavigationClient.connect(to: daemon)
        var acknowledged = Self.stackIdentity(try await nav.snapshot())
        var changes = 0
        var kills = 0
        var killsAfterOneway = 0
        var lost = 0
        var lostAfterOneway = 0
        var acknowledgedBy: [String: Int] = [:]
        let routes: [JSONObject] = [
            ["route": "products.list"], ["route": "settings.main"],
            ["route": "products.detail", "parameters": ["productID": "p2"]],
            ["route": "profile.user", "parameters": ["userID": "u2"]],
        ]

        while changes < 1_000 || kills < 20 {
            // Fire a burst of changes; remember the state after the last one acknowledged, as its reply says, with no
            // call between the last reply and the kill: a Stack call there gave the writer the time to land a write
            // that the reply had not waited for (audit, session 49).
            let burst = Int(random.next() % 60) + 1
            for _ in 0..<burst {
                let depth = acknowledged.stack.count
                // PopTo is refused with RouteNotOnStack when no products.list is there, Dismiss with NoModalPresented
                // when nothing is presented: a refusal changes nothing.
                let (method, parameters): (String, JSONObject) =
                    switch random.next() % 9 {
                    case 0, 1, 2: ("Navigate", routes[Int(random.next() % UInt64(routes.count))])
                    case 3 where depth > 1: ("Pop", [:])
                    case 4: ("Present", ["route": "settings.main"])
                    case 6 where depth > 1: ("PopToRoot", [:])
                    case 7: ("PopTo", ["route": "products.list"])
                    case 8: ("Dismiss", [:])
                    default: ("Replace", ["routes": [["route": "home.main"], .object(routes[Int(random.next() % 4)])]])
                    }
                let reply: JSONObject
                do {
                    reply = try await nav.call(method, parameters)
                } catch let error as VarlinkError where error.name.hasPrefix("io.navhost.Navigation.") {
                    continue
                }
                changes += 1
                acknowledgedBy[method, default: 0] += 1
                acknowledged = acknowledged.after(reply)
            }
            // Crash right after the last reply, where a reply sent before its change was on disk shows as a loss;
            // one kill in five with a oneway call in flight instead. Such a kill catches that less often (the daemon
            // reads and handles the oneway call, and the writer may land the write meanwhile): with the commit left
            // out of the navigation calls, two runs lost a change at 24 of 36 kills after a oneway call, and at 30 of
            // 38 right after a reply. Half the kills followed a oneway call until session 50 (a review point).
            let afterOneway = random.next() % 5 == 0
            if afterOneway {
                killsAfterOneway += 1
                try? await nav.client.oneway("io.navhost.Navigation.Navigate", parameters: ["route": "settings.main"])
            }
            try await daemon.crash()
            kills += 1
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            let after = Self.stackIdentity(try await nav.snapshot())
            // A oneway call is never acknowledged: it may or may not have landed, on top of the acknowledged stack.
            // Only a kill that followed one may find its screen there.
            let landedOneway = Expected(stack: Array(after.stack.dropLast()))
            let onewayLanded =
                afterOneway && landedOneway == acknowledged && after.stack.last?["route"] == "settings.main"
            if after != acknowledged && !onewayLanded {
                lost += 1
                if afterOneway { lostAfterOneway += 1 }
                Issue.record("after kill \(kills): expected \(acknowledged), found \(after)")
            }
            acknowledged = after
        }
        print(
            "durability: \(changes) acknowledged changes \(acknowledgedBy), \(kills) kills (\(killsAfterOneway) after a "
                + "oneway call), \(lost) lost (\(lostAfterOneway) after a oneway call)"
        )
        #expect(lost == 0)
        #expect(kills >= 20)
        #expect(killsAfterOneway > 0, "no kill followed a oneway call: the seed or the draw changed")
        for method in ["Navigate", "Present", "Pop", "PopToRoot", "PopTo", "Dismiss", "Replace"] {
            #expect(acknowledgedBy[method, default: 0] > 0, "no \(method) was acknowledged: \(acknowledgedBy)")
        }
        try await daemon.terminate()
    }

    @Test("A Send whose intent pushes a screen, or changes restorable state, survives kill -9 right after its reply")
    func acknowledgedSendsSurviveKills() async throws {
        // Slowed writes: an answer sent before its write lands is caught every time, not by chance.
        let daemon = try await DaemonProcess.start(extraArguments: Self.slowStateWrites)
        var nav = try await NavigationClient.connect(to: daemon)
        var lost: [String] = []
        let rounds = 12
        for round in 0..<rounds {
            _ = try await nav.call("Replace", ["routes": [["route": "home.main"], ["route": "products.list"]]])
            // Wait until the catalog has loaded: an intent sent before that changes nothing.
            try await Self.waitUntilLoaded(nav)
            let product = "p\(round % 3 + 1)"
            let filter = "r\(round)"
            if round.isMultiple(of: 2) {
                _ = try await nav.call(
                    "Send",
                    ["intent": "onTappedProduct", "arguments": ["productID": .string(product)]]
                )
            } else {
                _ = try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": .string(filter)]])
            }
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            let routes = try await nav.routes()
            if round.isMultiple(of: 2) {
                if routes != ["home.main", "products.list", "products.detail"] {
                    lost.append("round \(round): the pushed detail of \(product) is gone: \(routes)")
                }
            } else {
                try await Self.waitUntilLoaded(nav)
                let shown = try await nav.topState()["value"]?["filter"]
                if routes != ["home.main", "products.list"] || shown != .string(filter) {
                    lost.append("round \(round): the filter \(filter) is gone: \(routes), filter \(shown ?? .null)")
                }
            }
        }
        print("durability of Send: \(rounds) acknowledged Sends, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test("A Send whose intent saves to the feature's own store (Settings' theme) survives kill -9 after its reply")
    func featureStoreSurvivesKill() async throws {
        let daemon = try await DaemonProcess.start()
        var nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])
        let themes = ["dark", "system", "light"]
        var lost: [String] = []
        for round in 0..<9 {
            try await Self.waitUntilLoaded(nav)
            let theme = themes[round % themes.count]
            let reply = try await nav.call(
                "Send",
                ["intent": "onChangedTheme", "arguments": ["theme": .string(theme)]]
            )
            #expect(reply["screen"]?["state"]?["value"]?["theme"] == .string(theme), "round \(round)")
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            try await Self.waitUntilLoaded(nav)
            // The screen comes back from the session's record; the theme from the store the intent wrote.
            let shown = try await nav.topState()["value"]?["theme"]
            if shown != .string(theme) {
                lost.append("round \(round): \(theme) answered, \(shown ?? .null) after the restart")
            }
        }
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test("Two sessions' settings screens each change a preference: both are answered, shown and kept after kill -9")
    func featureStoreChangesOfTwoSessionsBothSurviveKill() async throws {
        let daemon = try await DaemonProcess.start()
        var nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "settings.main"])
        try await nav.call("OpenSession", ["name": "passenger", "root": "settings.main"])
        try await Self.waitUntilLoaded(nav)
        try await Self.waitUntilLoaded(nav, session: "passenger")

        // Each screen loaded the defaults; each changes another preference. The second screen's change is made to
        // what the store holds, not to its own copy: the theme the first one chose stays.
        try await nav.call("Send", ["intent": "onChangedTheme", "arguments": ["theme": "dark"]])
        let second = try await nav.call(
            "Send",
            ["session": "passenger", "intent": "onChangedLanguage", "arguments": ["language": "fr"]]
        )
        let answered = second["screen"]?["state"]?["value"]
        #expect(answered?["theme"] == "dark" && answered?["language"] == "fr", "\(answered ?? .null)")

        try await daemon.crash()
        try await daemon.restart()
        nav = try await NavigationClient.connect(to: daemon)
        for session in ["main", "passenger"] {
            try await Self.waitUntilLoaded(nav, session: session)
            let shown = try await nav.topState(session: session)["value"]
            #expect(shown?["theme"] == "dark" && shown?["language"] == "fr", "\(session): \(shown ?? .null)")
        }
        try await daemon.terminate()
    }

    @Test(
        "Refused calls change nothing on disk either: a kill -9 right after each finds the stack and filter unchanged"
    )
    func refusedCallsSurviveKill() async throws {
        let daemon = try await DaemonProcess.start(extraArguments: ["--max-stack-depth", "3"])
        var nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "products.list"])
        _ = try await DaemonDurabilityTests.durable(of: "main", through: nav)
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "lamp"]])
        let before = try await DaemonDurabilityTests.durable(of: "main", through: nav)
        let refusals: [(method: String, parameters: JSONObject, error: String)] = [
            ("Navigate", ["route": "products.nowhere"], "io.navhost.Navigation.RouteNotFound"),
            ("Navigate", ["route": "products.detail"], "io.navhost.Navigation.InvalidRouteParameters"),
            ("Send", ["intent": "onTappedNowhere"], "io.navhost.Navigation.IntentNotFound"),
            (
                "Send", ["intent": "onChangedFilter", "arguments": ["text": 7]],
                "io.navhost.Navigation.InvalidIntentArguments"
            ),
            ("Replace", ["routes": [["route": "home.main"], ["route": "x.y"]]], "io.navhost.Navigation.RouteNotFound"),
            ("PopTo", ["route": "settings.main"], "io.navhost.Navigation.RouteNotOnStack"),
        ]
        for refusal in refusals {
            let error = await #expect(throws: VarlinkError.self, "\(refusal.method)") {
                try await nav.call(refusal.method, refusal.parameters)
            }
            #expect(error?.name == refusal.error, "\(refusal.method): \(String(describing: error))")
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            #expect(try await DaemonDurabilityTests.durable(of: "main", through: nav) == before, "\(refusal.method)")
        }
        // One screen more than the limit allows: StackTooDeep, the screen under it as it was.
        try await nav.call("Navigate", ["route": "products.detail", "parameters": ["productID": "p1"]])
        let above = try await DaemonDurabilityTests.durable(of: "main", through: nav)
        let tooDeep = await #expect(throws: VarlinkError.self) {
            try await nav.call("Navigate", ["route": "settings.main"])
        }
        #expect(tooDeep?.name == "io.navhost.Navigation.StackTooDeep")
        try await daemon.crash()
        try await daemon.restart()
        nav = try await NavigationClient.connect(to: daemon)
        #expect(try await DaemonDurabilityTests.durable(of: "main", through: nav) == above)
        try await nav.call("Pop")
        #expect(try await DaemonDurabilityTests.durable(of: "main", through: nav) == before)
        try await daemon.terminate()
    }

    @Test(
        "A Send answered IntentFailed keeps what its intent did before it failed across kill -9 right after the error"
    )
    func failedSendsKeepWhatTheyDid() async throws {
        // Opens a screen and fails at once, or after a suspension; or sets the restorable note and fails.
        try await Self.expectWorkKeptAcrossKills(
            (0..<9).map { round in
                switch round % 3 {
                case 0: ErrorAfterWork(intent: "onChangedNoteThenFail", note: "n\(round)", error: "IntentFailed")
                case 1: ErrorAfterWork(intent: "onTappedOpenThenFail", error: "IntentFailed")
                default: ErrorAfterWork(intent: "onTappedOpenThenFailLater", error: "IntentFailed")
                }
            },
            label: "failed Sends"
        )
    }

    @Test(
        "A Send whose ViewModel throws IntentError itself, after it changed things, keeps them across kill -9 right after the refusal"
    )
    func selfRefusedSendsKeepWhatTheyDid() async throws {
        // Opens a screen, then refuses as if its arguments were wrong; or sets the note, then refuses as if it were no
        // intent of the screen's. The refusal is the ViewModel's own, after it changed things.
        try await Self.expectWorkKeptAcrossKills(
            (0..<6).map { round in
                round.isMultiple(of: 2)
                    ? ErrorAfterWork(intent: "onTappedOpenThenRefuse", error: "InvalidIntentArguments")
                    : ErrorAfterWork(intent: "onChangedNoteThenRefuse", note: "r\(round)", error: "IntentNotFound")
            },
            label: "self-refused Sends"
        )
    }

    /// A `Send` of the `Faulty` fixture answered with an error after its intent changed something: a screen it opened
    /// above its own, or, with `note`, the restorable note it set to that.
    struct ErrorAfterWork {
        let intent: String
        var note: String?
        /// The error's name in `io.navhost.Navigation`.
        let error: String
    }

    /// Sends each of `rounds` to a `faulty.main` alone on the stack, expects its error, kills the daemon right after it
    /// and checks that what the intent did came back; prints the count under `label`. Slowed writes: an error
    /// answered before the intent's changes are on disk is caught every time, not by chance.
    static func expectWorkKeptAcrossKills(_ rounds: [ErrorAfterWork], label: String) async throws {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"],
            extraArguments: slowStateWrites
        )
        var nav = try await NavigationClient.connect(to: daemon)
        var lost: [String] = []
        for (number, round) in rounds.enumerated() {
            _ = try await nav.call("Replace", ["routes": [["route": "faulty.main"]]])
            _ = try await durable(of: "main", through: nav)
            let failure = await #expect(throws: VarlinkError.self) {
                var parameters: JSONObject = ["intent": .string(round.intent)]
                if let note = round.note { parameters["arguments"] = ["text": .string(note)] }
                try await nav.call("Send", parameters)
            }
            #expect(failure?.name == "io.navhost.Navigation.\(round.error)", "\(String(describing: failure))")
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            if let note = round.note {
                if try await nav.topState()["note"] != .string(note) {
                    lost.append("round \(number): the note \(note) \(round.intent) set is gone")
                }
            } else {
                let routes = try await nav.routes()
                if routes != ["faulty.main", "faulty.main"] {
                    lost.append("round \(number): the screen \(round.intent) opened is gone: \(routes)")
                }
            }
        }
        print("durability of \(label): \(rounds.count) errors, \(rounds.count) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    /// Waits (as ``pollUntil(within:_:)`` does) until the top screen's state is loaded; records an issue of its own if not.
    static func waitUntilLoaded(_ nav: NavigationClient, session: String = "main") async throws {
        let loaded = try await pollUntil { try await nav.topState(session: session)["status"] == "loaded" }
        // Said as what it is: a screen slow to load on a busy machine is no lost change.
        if !loaded { Issue.record("the top screen of \(session) did not load within the wait") }
    }
}

/// A small deterministic generator (SplitMix64), so a failing run can be replayed.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
