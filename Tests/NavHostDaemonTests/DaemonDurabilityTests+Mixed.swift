import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// The judged durability test of docs/durability.md: four clients at once, every kind of call mixed, killed with
// SIGKILL at random moments at least 50 times. Each client owns a session, so what it was acknowledged is exactly what
// its session must hold after the restart — or that plus the calls it still had in flight, which may have landed.

extension DaemonDurabilityTests {
    /// What must survive of a session: its stack (routes, parameters and presentations) and, when the top screen is
    /// the product list, the filter it restores.
    struct Durable: Equatable, CustomStringConvertible {
        var stack: [JSONValue]
        var filter: String?

        var description: String {
            stack.map { "\($0["route"]?.stringValue ?? "?")\($0["parameters"] == [:] ? "" : "\($0["parameters"]!)")" }
                .joined(separator: " / ") + (filter.map { " [filter \"\($0)\"]" } ?? "")
        }

        var top: String? { stack.last?["route"]?.stringValue }

        /// This state after `call` took effect.
        func after(_ call: MixedCall) -> Durable {
            var next = self
            switch call {
            case .navigate(let route, let parameters), .navigateOneway(let route, let parameters):
                next.stack.append(Self.screen(route, parameters))
                next.filter = route == "products.list" ? "" : nil
            case .present(let route):
                next.stack.append(Self.screen(route, presentation: "modal"))
                next.filter = nil
            case .pop:
                if next.stack.count > 1 { next.stack.removeLast() }
                next.filter = nil
            case .popToRoot:
                next.stack = Array(next.stack.prefix(1))
                next.filter = nil
            case .popTo(let route):
                if let index = next.stack.lastIndex(where: { $0["route"]?.stringValue == route }) {
                    next.stack = Array(next.stack.prefix(through: index))
                }
                // The list under the popped screens restores its own filter: read back, not known here.
                next.filter = nil
            case .dismiss:
                if let index = next.modalIndex { next.stack = Array(next.stack.prefix(upTo: index)) }
                next.filter = nil
            case .replace(let routes):
                next.stack = routes.map { Self.screen($0) }
                next.filter = nil
            case .sendProduct(let product):
                next.stack.append(Self.screen("products.detail", ["productID": .string(product)]))
                next.filter = nil
            case .sendFilter(let text):
                next.filter = text
            }
            return next
        }

        /// Where the topmost modal screen is, if one is shown.
        var modalIndex: Int? { stack.lastIndex { $0["presentation"] == "modal" } }

        /// A screen of the stack as ``DaemonDurabilityTests/durable(of:through:)`` reads it.
        static func screen(_ route: String, _ parameters: JSONObject = [:], presentation: String = "push") -> JSONValue
        {
            ["route": .string(route), "parameters": .object(parameters), "presentation": .string(presentation)]
        }

        /// Equal, where the filter counts only when both sides know it.
        func matches(_ other: Durable) -> Bool {
            stack == other.stack && (filter == nil || other.filter == nil || filter == other.filter)
        }
    }

    /// One call a client makes.
    enum MixedCall: Sendable {
        case navigate(String, JSONObject)
        case navigateOneway(String, JSONObject)
        case present(String)
        case pop
        case popToRoot
        case popTo(String)
        case dismiss
        case replace([String])
        case sendProduct(String)
        case sendFilter(String)
    }

    /// What a client had when the daemon died: the last state acknowledged, and the calls sent but not answered.
    struct ClientOutcome: Sendable {
        var session: String
        var acknowledged: Durable
        var inFlight: [MixedCall]
        var calls: Int
        /// An error the daemon answered a call with (`nil` when none): the daemon was alive then, and the client
        /// stopped at a call it should not have been refused.
        var refusal: String?
    }

    @Test(
        "At least 50 kill -9s under four clients mixing Navigate (oneway too), Present, the pops, Replace and Send lose nothing acknowledged"
    )
    func mixedKills() async throws {
        let sessions = (0..<4).map { "c\($0)" }
        let daemon = try await DaemonProcess.start(sessions: sessions.map { "\($0)=home.main" })
        var random = SeededRandom(seed: 20_261_125)
        var acknowledged: [String: Durable] = [:]
        for session in sessions { acknowledged[session] = Durable(stack: [Durable.screen("home.main")]) }
        var kills = 0
        var calls = 0
        var inFlightLanded = 0
        var lost: [String] = []
        // At least 50 kills and 500 acknowledged calls: a loaded machine answers fewer calls between two kills, so
        // it gets more kills rather than a thinner test (at most 200, the count then fails the expectation below).
        while kills < 50 || (calls < 500 && kills < 200) {
            let pause = Duration.milliseconds(Int64(random.next() % 400) + 50)
            let seeds = sessions.map { _ in random.next() }
            let starting = acknowledged
            let outcomes = try await withThrowingTaskGroup(of: ClientOutcome?.self) { group in
                for (index, session) in sessions.enumerated() {
                    group.addTask {
                        await Self.drive(session, from: starting[session]!, seed: seeds[index], daemon: daemon)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: pause)
                    try await daemon.crash()
                    return nil
                }
                var outcomes: [ClientOutcome] = []
                for try await outcome in group { if let outcome { outcomes.append(outcome) } }
                return outcomes
            }
            kills += 1
            try await daemon.restart()
            let reader = try await NavigationClient.connect(to: daemon)
            for outcome in outcomes {
                calls += outcome.calls
                if let refusal = outcome.refusal {
                    Issue.record("kill \(kills), \(outcome.session): a call was answered with an error: \(refusal)")
                }
                let restored = try await Self.durable(of: outcome.session, through: reader)
                var candidate = outcome.acknowledged
                var allowed = [candidate]
                for call in outcome.inFlight {
                    candidate = candidate.after(call)
                    allowed.append(candidate)
                }
                if !allowed.contains(where: { $0.matches(restored) }) {
                    lost.append(
                        "kill \(kills), \(outcome.session): acknowledged \(outcome.acknowledged), in flight "
                            + "\(outcome.inFlight), found \(restored)"
                    )
                } else if !restored.matches(outcome.acknowledged) {
                    inFlightLanded += 1
                }
                acknowledged[outcome.session] = restored
            }
            try await reader.close()
        }
        print(
            "durability, mixed: \(calls) acknowledged calls by 4 clients, \(kills) kills, \(inFlightLanded) sessions "
                + "where an unanswered call had landed, \(lost.count) acknowledged changes lost"
        )
        #expect(lost.isEmpty, "\(lost)")
        #expect(calls >= 500, "the clients made \(calls) acknowledged calls")
        try await daemon.terminate()
    }

    /// One client: calls on `session` until the daemon dies, keeping what was acknowledged. Only a broken connection
    /// is taken as the daemon's death: an error reply came from a live daemon, and is kept as the outcome's
    /// ``ClientOutcome/refusal`` (before session 49 it too ended the client as a kill would, unnoticed).
    private static func drive(
        _ session: String,
        from start: Durable,
        seed: UInt64,
        daemon: DaemonProcess
    ) async -> ClientOutcome {
        var random = SeededRandom(seed: seed)
        var outcome = ClientOutcome(session: session, acknowledged: start, inFlight: [], calls: 0, refusal: nil)
        guard let client = try? await NavigationClient.connect(to: daemon) else { return outcome }
        let sessionParameter: JSONObject = ["session": .string(session)]
        do {
            while true {
                let current = outcome.acknowledged
                // The oneway calls sent since the last answer have taken effect by the time this call runs (a
                // connection's calls run in order): a Send chosen for the list under one went to its settings screen.
                let shown = outcome.inFlight.reduce(current) { $0.after($1) }
                let call: MixedCall
                if shown.stack.count > 8 {
                    call = .replace(["home.main", "products.list"])
                } else if shown.top == "products.list", shown.filter != nil, random.next() % 2 == 0 {
                    call =
                        random.next() % 2 == 0
                        ? .sendFilter("f\(random.next() % 1000)") : .sendProduct("p\(random.next() % 3 + 1)")
                } else {
                    let list = shown.stack.lastIndex { $0["route"] == "products.list" }
                    switch random.next() % 10 {
                    case 0, 1: call = .navigate("products.list", [:])
                    case 2: call = .navigate("profile.user", ["userID": .string("u\(random.next() % 3 + 1)")])
                    case 3: call = .navigateOneway("settings.main", [:])
                    case 4 where shown.stack.count > 1: call = .pop
                    case 5: call = .present("settings.main")
                    case 6 where shown.modalIndex != nil: call = .dismiss
                    case 7 where shown.stack.count > 1: call = .popToRoot
                    case 8 where list.map({ $0 < shown.stack.count - 1 }) == true: call = .popTo("products.list")
                    default: call = .replace(["home.main", "products.list"])
                    }
                }
                outcome.inFlight.append(call)
                switch call {
                case .navigateOneway(let route, _):
                    try await client.client.oneway(
                        "io.navhost.Navigation.Navigate",
                        parameters: sessionParameter.merging(["route": .string(route)])
                    )
                    // A oneway call is never acknowledged: it stays in flight until a later answer covers it.
                    continue
                case .navigate(let route, let parameters):
                    try await client.call(
                        "Navigate",
                        sessionParameter.merging(["route": .string(route), "parameters": .object(parameters)])
                    )
                case .present(let route):
                    try await client.call("Present", sessionParameter.merging(["route": .string(route)]))
                case .pop:
                    try await client.call("Pop", sessionParameter)
                case .popToRoot:
                    try await client.call("PopToRoot", sessionParameter)
                case .popTo(let route):
                    try await client.call("PopTo", sessionParameter.merging(["route": .string(route)]))
                case .dismiss:
                    try await client.call("Dismiss", sessionParameter)
                case .replace(let routes):
                    let requests = routes.map { JSONValue.object(["route": .string($0)]) }
                    try await client.call("Replace", sessionParameter.merging(["routes": .array(requests)]))
                case .sendFilter(let text):
                    try await client.call(
                        "Send",
                        sessionParameter.merging(["intent": "onChangedFilter", "arguments": ["text": .string(text)]])
                    )
                case .sendProduct(let product):
                    try await client.call(
                        "Send",
                        sessionParameter.merging([
                            "intent": "onTappedProduct", "arguments": ["productID": .string(product)],
                        ])
                    )
                }
                // Answered: this call and every oneway call before it on this connection have taken effect, as of
                // now: a kill while the state is read back below must find them all.
                outcome.acknowledged = outcome.inFlight.reduce(current) { $0.after($1) }
                outcome.inFlight = []
                outcome.calls += 1
                // What the daemon shows refines it (a restored filter) for the next call.
                outcome.acknowledged = try await durable(of: session, through: client)
            }
        } catch let refusal as VarlinkError {
            outcome.refusal = "\(refusal.name) \(refusal.parameters) to \(outcome.inFlight.last.map { "\($0)" } ?? "?")"
            return outcome
        } catch {
            return outcome
        }
    }

    /// The session's durable state as the daemon shows it; for a product list on top, once it has loaded.
    static func durable(of session: String, through client: NavigationClient) async throws -> Durable {
        var snapshot = try await client.snapshot(session: session)
        var stack = (snapshot["stack"]?.arrayValue ?? []).map(Self.durableScreen)
        guard stack.last?["route"] == "products.list" else { return Durable(stack: stack, filter: nil) }
        _ = try await pollUntil {
            guard snapshot["stack"]?.arrayValue?.last?["state"]?["status"] != "loaded" else { return true }
            snapshot = try await client.snapshot(session: session)
            return false
        }
        stack = (snapshot["stack"]?.arrayValue ?? []).map(Self.durableScreen)
        let filter = snapshot["stack"]?.arrayValue?.last?["state"]?["value"]?["filter"]?.stringValue
        return Durable(stack: stack, filter: filter)
    }
}

extension DaemonDurabilityTests {
    /// What of a screen of a snapshot must survive: its route, parameters and presentation.
    fileprivate static func durableScreen(_ screen: JSONValue) -> JSONValue {
        [
            "route": screen["route"] ?? .null, "parameters": screen["parameters"] ?? [:],
            "presentation": screen["presentation"] ?? .null,
        ]
    }
}

extension JSONObject {
    /// These members with `other`'s added (replacing any of the same name).
    fileprivate func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other { merged[key] = value }
        return merged
    }
}
