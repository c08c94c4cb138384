public import NavHostCore
import NavHostKit
public import NavHostVarlink

/// `io.navhost.Navigation`: the front door to the sessions, for every front end.
///
/// Each handler hops onto the main actor, where the navigation core runs, does one thing, and answers. Refusals are
/// ``NavigationError``s, which the Varlink layer sends as the interface's typed errors. A change is answered only
/// once it is durable (see `SessionRegistry.commit(_:)`).
public enum NavigationInterface {
    /// The interface's name.
    public static let name = "io.navhost.Navigation"

    /// The interface's definition, as served by `GetInterfaceDescription`.
    public static let definition = InterfaceDefinitions.navigation

    /// Builds the interface over `sessions`; `access` decides who may change them (everyone may read).
    public static func implementation(
        sessions: SessionRegistry,
        access: AccessPolicy
    ) -> VarlinkInterfaceImplementation {
        let handlers = NavigationHandlers(sessions: sessions)
        var navigation: VarlinkInterfaceImplementation
        do {
            navigation = try VarlinkInterfaceImplementation(description: definition)
        } catch {
            preconditionFailure("io.navhost.Navigation.varlink does not parse: \(error)")
        }
        navigation.handle("Sessions") { _ in try await handlers.sessionNames() }
        navigation.handle("Stack", parameters: SessionParameters.self) { input, _ in
            try await handlers.stack(input)
        }
        navigation.handle("Routes") { _ in try await handlers.routes() }
        navigation.handle("Navigate", parameters: RouteParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.push(input, modal: false)
        }
        navigation.handle("Present", parameters: RouteParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.push(input, modal: true)
        }
        navigation.handle("Pop", parameters: SessionParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.remove(.pop, in: input.session)
        }
        navigation.handle("PopToRoot", parameters: SessionParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.remove(.popToRoot, in: input.session)
        }
        navigation.handle("PopTo", parameters: RouteParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.remove(.popTo(input.request), in: input.session)
        }
        navigation.handle("Dismiss", parameters: SessionParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.remove(.dismiss, in: input.session)
        }
        navigation.handle("Replace", parameters: ReplaceParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.replace(input)
        }
        navigation.handle("Send", parameters: SendParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.send(input)
        }
        navigation.handleStreaming("Watch") { request, replies in
            let input = try request.decodeParameters(as: WatchParameters.self)
            return try await handlers.watch(input, replies: replies)
        }
        return navigation
    }
}

// MARK: - Handlers

/// What each method does, on the main actor.
@MainActor
private final class NavigationHandlers: Sendable {
    private let sessions: SessionRegistry

    nonisolated init(sessions: SessionRegistry) {
        self.sessions = sessions
    }

    func sessionNames() throws -> JSONObject {
        ["sessions": .array(sessions.names.map(JSONValue.string))]
    }

    func stack(_ input: SessionParameters) throws -> JSONObject {
        ["snapshot": try JSONValueEncoder().encode(try sessions.session(input.session).snapshot)]
    }

    func routes() throws -> JSONObject {
        let routes: [JSONValue] = sessions.catalog.routes.map { feature, screen in
            [
                "route": .string(screen.route),
                "feature": .string(feature),
                "parameters": .array(screen.parameters.map(JSONValue.string)),
                "intents": .array(screen.intents.map(JSONValue.string)),
                "summary": .string(screen.summary),
            ]
        }
        return ["routes": .array(routes)]
    }

    func push(_ input: RouteParameters, modal: Bool) async throws -> JSONObject {
        let session = try sessions.session(input.session)
        let change = modal ? try session.present(input.request) : try session.navigate(to: input.request)
        try await sessions.commit(session)
        guard case .pushed(let screen) = change.event.change else { preconditionFailure("a push records .pushed") }
        return ["revision": .int(Int64(change.revision)), "screen": try JSONValueEncoder().encode(screen)]
    }

    /// The operations that take screens off a stack.
    enum Removal: Sendable {
        case pop, popToRoot, dismiss
        case popTo(RouteRequest)
    }

    func remove(_ removal: Removal, in sessionName: String?) async throws -> JSONObject {
        let session = try sessions.session(sessionName)
        let change: NavigationSession.Change?
        switch removal {
        case .pop: change = try session.pop()
        case .popToRoot: change = session.popToRoot()
        case .dismiss: change = try session.dismiss()
        case .popTo(let request): change = try session.popTo(request)
        }
        try await sessions.commit(session)
        guard let change else {
            return ["revision": .int(Int64(session.revision)), "removed": []]
        }
        guard case .popped(let removed) = change.event.change else { preconditionFailure("a pop records .popped") }
        return [
            "revision": .int(Int64(change.revision)),
            "removed": .array(removed.map { .string($0.rawValue) }),
        ]
    }

    func replace(_ input: ReplaceParameters) async throws -> JSONObject {
        let session = try sessions.session(input.session)
        let change = try session.replace(with: input.requests)
        try await sessions.commit(session)
        guard case .replaced(let stack) = change.event.change else { preconditionFailure("records .replaced") }
        return ["revision": .int(Int64(change.revision)), "stack": try JSONValueEncoder().encode(stack)]
    }

    func send(_ input: SendParameters) async throws -> JSONObject {
        let session = try sessions.session(input.session)
        let target = try session.screenSnapshot(input.screen.map(ScreenID.init)).id
        try await session.send(
            IntentMessage(name: input.intent, arguments: input.arguments ?? JSONObject()),
            to: target
        )
        var reply: JSONObject = ["revision": .int(Int64(session.revision))]
        if let screen = try? session.screenSnapshot(target) {
            reply["screen"] = try JSONValueEncoder().encode(screen)
        }
        return reply
    }

    func watch(_ input: WatchParameters, replies: VarlinkReplyWriter) async throws -> JSONObject {
        let session = try sessions.session(input.session)
        let watcher = session.watch(from: input.resumeFrom.map { UInt64(clamping: $0) })
        defer { watcher.cancel() }
        guard replies.isStreaming else {
            // Without "more", Watch answers once with the current snapshot.
            return try Self.reply(for: .snapshot(session.snapshot, coalesced: false))
        }
        do {
            while let update = try await watcher.next() {
                try await replies.send(try Self.reply(for: update))
            }
        } catch SessionWatcher.Ending.tooSlow {
            throw VarlinkError(name: "\(NavigationInterface.name).WatcherTooSlow")
        } catch SessionWatcher.Ending.sessionClosed {
            return [:]
        }
        return [:]
    }

    private nonisolated static func reply(for update: SessionWatcher.Update) throws -> JSONObject {
        switch update {
        case .snapshot(let snapshot, let coalesced):
            var reply: JSONObject = ["snapshot": try JSONValueEncoder().encode(snapshot)]
            if coalesced { reply["coalesced"] = true }
            return reply
        case .event(let event):
            return ["event": try JSONValueEncoder().encode(event)]
        }
    }
}
