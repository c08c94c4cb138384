public import NavHostCore
import NavHostKit
import NavHostStorage
public import NavHostVarlink
import NavHostWire
import Synchronization

/// `io.navhost.Navigation`: the front door to the sessions, for every front end.
///
/// Each handler hops onto the main actor, where the navigation core runs, does one thing, and answers. Refusals are
/// ``NavigationError``s, which the Varlink layer sends as the interface's typed errors. A change is answered only
/// once it is durable (see `SessionRegistry.commit(_:takeBacks:)`).
public enum NavigationInterface {
    /// The interface's name.
    public static let name = NavHostInterfaceName.navigation

    /// The interface's definition, as served by `GetInterfaceDescription`.
    public static let definition = InterfaceDefinitions.navigation

    /// Builds the interface over `sessions`; `access` decides who may change them (everyone may read). A session
    /// opened with `OpenSession` takes the registry's `defaultOptions` where the client sets none.
    public static func implementation(
        sessions: SessionRegistry,
        access: AccessControl
    ) -> VarlinkInterfaceImplementation {
        let handlers = NavigationHandlers(sessions: sessions)
        var navigation: VarlinkInterfaceImplementation
        do {
            navigation = try VarlinkInterfaceImplementation(description: definition)
        } catch {
            preconditionFailure("io.navhost.Navigation.varlink does not parse: \(error)")
        }
        navigation.handle("Sessions") { _ in try await handlers.sessionNames() }
        navigation.handle("OpenSession") { request in
            try access.requireControl(request)
            return try await handlers.openSession(try OpenSessionParameters(request.parameters))
        }
        navigation.handle("CloseSession") { request in
            try access.requireControl(request)
            return try await handlers.closeSession(named: NameParameters(request.parameters).name)
        }
        navigation.handleStreaming("WatchSessions") { _, replies in
            try await handlers.watchSessions(replies: replies)
        }
        navigation.handle("Stack") { request in
            try await handlers.stack(SessionParameters(request.parameters))
        }
        navigation.handle("Routes") { _ in try await handlers.routes() }
        navigation.handle("Navigate") { request in
            try access.requireControl(request)
            return try await handlers.push(RouteParameters(request.parameters), modal: false)
        }
        navigation.handle("Present") { request in
            try access.requireControl(request)
            return try await handlers.push(RouteParameters(request.parameters), modal: true)
        }
        navigation.handle("Pop") { request in
            try access.requireControl(request)
            return try await handlers.remove(.pop, in: SessionParameters(request.parameters).session)
        }
        navigation.handle("PopToRoot") { request in
            try access.requireControl(request)
            return try await handlers.remove(.popToRoot, in: SessionParameters(request.parameters).session)
        }
        navigation.handle("PopTo") { request in
            try access.requireControl(request)
            let input = RouteParameters(request.parameters)
            return try await handlers.remove(.popTo(input.request), in: input.session)
        }
        navigation.handle("Dismiss") { request in
            try access.requireControl(request)
            return try await handlers.remove(.dismiss, in: SessionParameters(request.parameters).session)
        }
        navigation.handle("Replace") { request in
            try access.requireControl(request)
            return try await handlers.replace(ReplaceParameters(request.parameters))
        }
        // The busiest method: it starts in the read that brought it, needs a task only if the intent suspends, and
        // its reply is written from the screen's text, kept until the screen changes.
        navigation.handleStarting("Send") { request in
            try access.requireControl(request)
            return try handlers.startSending(request.withParameterReader { SendParameters($0) })
        }
        navigation.handle("Recording") { request in
            try access.requireControl(request)
            return try await handlers.recording(of: SessionParameters(request.parameters).session)
        }
        navigation.handle("Replay") { request in
            try access.requireControl(request)
            return try await handlers.replay(try ReplayParameters(request.parameters))
        }
        navigation.handleStreaming("Watch") { request, replies in
            try await handlers.watch(try WatchParameters(request.parameters), replies: replies)
        }
        return navigation
    }
}

// MARK: - Handlers

/// What each method does, on the main actor.
@MainActor
private final class NavigationHandlers: Sendable {
    private let sessions: SessionRegistry
    /// Each session's latest event as a reply, serialized once for all its watchers.
    private nonisolated let eventReplies = EventReplies()

    nonisolated init(sessions: SessionRegistry) {
        self.sessions = sessions
    }

    /// On the main actor, wherever the last call's closure lets the handlers go (on a thread of the pool when the
    /// service went first): the registry they hold must be freed there (the rule in Backlink.swift).
    isolated deinit {}

    func sessionNames() throws -> JSONObject {
        SessionsReply(sessions: sessions.names).jsonObject
    }

    // MARK: Opening and closing sessions

    func openSession(_ input: OpenSessionParameters) async throws -> JSONObject {
        // The session as its first record holds it: another client may change it while that record is written.
        let (session, snapshot) = try await sessions.openDurablyAnswering(input)
        eventReplies.forget(session.name)
        return StackReply(snapshot: snapshot).jsonObject
    }

    func closeSession(named name: String) async throws -> JSONObject {
        try await sessions.closeDurably(name)
        eventReplies.forget(name)
        return [:]
    }

    /// Follows the session list until the client goes or the daemon stops.
    nonisolated func watchSessions(replies: VarlinkReplyWriter) async throws -> JSONObject {
        guard replies.isStreaming else { return try await sessionNames() }
        let watcher = await sessions.watchNames()
        defer { watcher.cancel() }
        do {
            while let update = try await watcher.next() {
                switch update {
                case .snapshot(let names, let coalesced):
                    try await replies.send(SessionListReply.sessions(names, coalesced: coalesced).jsonObject)
                case .event(let event):
                    try await replies.send(SessionListReply.event(event).jsonObject)
                }
            }
        } catch SessionListWatcher.Ending.closed {
            return [:]
        } catch SessionListWatcher.Ending.stopping {
            throw SessionsShutDown()
        }
        // Cancelled (the server stopping, or the client gone): the server ends it with ServiceShuttingDown.
        try Task.checkCancellation()
        return [:]
    }

    func stack(_ input: SessionParameters) throws -> JSONObject {
        StackReply(snapshot: try sessions.session(input.session).snapshot).jsonObject
    }

    func routes() throws -> JSONObject {
        let routes = sessions.catalog.routes.map { feature, screen in
            RouteInfo(
                route: screen.route,
                feature: feature,
                parameters: screen.parameters,
                intents: screen.intents,
                summary: screen.summary,
                intentArguments: screen.intentArguments
            )
        }
        return try JSONValueEncoder().encode(RoutesReply(routes: routes)).objectValue ?? [:]
    }

    func push(_ input: RouteParameters, modal: Bool) async throws -> JSONObject {
        let session = try sessions.session(input.session)
        let takeBacks = session.takeBacks
        let change = try await session.handle(modal ? .present(input.request) : .navigate(input.request))
        try await sessions.commit(session, takeBacks: takeBacks)
        guard let change, case .pushed(let screen) = change.event.change else {
            preconditionFailure("a push records .pushed")
        }
        return PushResult(revision: change.revision, screen: screen).jsonObject
    }

    /// Pop, PopToRoot, PopTo or Dismiss.
    func remove(_ removal: SessionCall, in sessionName: String?) async throws -> JSONObject {
        let session = try sessions.session(sessionName)
        let takeBacks = session.takeBacks
        let change = try await session.handle(removal)
        let revision = session.revision  // as the commit's record holds it, not as it is after the write
        try await sessions.commit(session, takeBacks: takeBacks)
        guard let change else {
            return PopResult(revision: revision, removed: []).jsonObject
        }
        guard case .popped(let removed) = change.event.change else { preconditionFailure("a pop records .popped") }
        return PopResult(revision: change.revision, removed: removed).jsonObject
    }

    func replace(_ input: ReplaceParameters) async throws -> JSONObject {
        let session = try sessions.session(input.session)
        let takeBacks = session.takeBacks
        let change = try await session.handle(.replace(input.routes))
        try await sessions.commit(session, takeBacks: takeBacks)
        guard let change, case .replaced(let stack) = change.event.change else {
            preconditionFailure("records .replaced")
        }
        return ReplaceResult(revision: change.revision, stack: stack).jsonObject
    }

    func startSending(_ input: SendParameters) throws -> VarlinkCallStart {
        let session = try sessions.session(input.session)
        // The optional screen ID is looked at once: each look at the SDK's resilient `ScreenID` in an optional copies
        // it through the runtime, and asking whether it is `nil` twice made three such copies.
        let target: ScreenID
        let position: Int?
        switch input.screen {
        case .some(let screen):
            // A named screen is recorded by its place on the stack, which a replay can find again. Not on the stack:
            // `ScreenNotFound`, as looking its ID up says.
            position = try session.position(of: screen)
            target = screen
        case .none:
            target = try session.screenID(at: nil)
            position = nil
        }
        let takeBacks = session.takeBacks
        let progress: CallProgress<NavigationSession.Change?>
        do {
            progress = try session.startHandling(.send(input.message, position: position))
        } catch {
            return try failureReply(error, session, takeBacks: takeBacks)
        }
        // Taken apart, not matched in place, which copies the progress (NavigationSession.startHandling says why).
        let rest: @MainActor @Sendable () async throws(NavigationError) -> NavigationSession.Change?
        switch consume progress {
        case .finished: return try sendReply(session, target, takeBacks: takeBacks)
        case .suspended(let suspended): rest = suspended
        }
        return .suspended { [self] in
            do {
                _ = try await rest()
            } catch let error as NavigationError {
                return try await failureReply(error, session, takeBacks: takeBacks).parameters
            }
            return try await sendReply(session, target, takeBacks: takeBacks).parameters
        }
    }

    /// The error reply to a `Send` whose intent ran and failed (`IntentFailed`, `IntentTimedOut`, `ScreenClosed`):
    /// once what it changed before it failed is on disk. The error says that what the intent did stays — navigation
    /// it asked for, restorable state it changed — so that is durable first, as for an answer that it is done; so is
    /// a refusal that follows the intent's work (`IntentNotFound` or `InvalidIntentArguments` thrown by the ViewModel
    /// itself, or by a screen a reload rebuilt under the intent: ``NavigationError/intentRan``). A call refused before
    /// its intent ran changed nothing and is answered at once, whatever other calls left to write. A write that fails instead throws its own error (`StorageFailed`:
    /// what the intent did was taken back), unless the session was closed meanwhile: then the failure stands.
    private func failureReply(
        _ failure: NavigationError,
        _ session: NavigationSession,
        takeBacks: Int
    ) throws -> VarlinkCallStart {
        guard [.intentFailed, .intentTimedOut, .screenClosed].contains(failure.code) || failure.intentRan else {
            throw failure
        }
        do {
            if try sessions.commitAtOnce(session, takeBacks: takeBacks) { throw failure }
        } catch let closed as NavigationError where closed.code == .sessionNotFound {
            throw failure
        }
        return .suspended { [sessions] in
            do {
                try await sessions.commit(session, takeBacks: takeBacks)
            } catch let closed as NavigationError where closed.code == .sessionNotFound {
                throw failure
            }
            throw failure
        }
    }

    /// The reply to a `Send` whose intent was handled: once whatever durable it changed is on disk.
    private func sendReply(
        _ session: NavigationSession,
        _ target: ScreenID,
        takeBacks: Int
    ) throws -> VarlinkCallStart {
        // The reply describes the session as the record the commit takes now holds it: read in the same stretch, not
        // after the write, during which other work (another client's call, a load finishing) may change the screen
        // with changes not yet on disk.
        let reply = VarlinkSerializedParameters(
            text: try SendResult.serializedParameters(
                revision: session.revision,
                screen: try session.serializedScreenSnapshot(target)
            )
        )
        // The intent may have navigated (through the ViewModel's Router) or changed restorable state: the reply
        // says it is done, so whatever durable changed is on disk first. An intent that changed nothing durable is
        // answered at once.
        if try sessions.commitAtOnce(session, takeBacks: takeBacks) { return .finished(reply) }
        return .suspended { [sessions] in
            try await sessions.commit(session, takeBacks: takeBacks)
            return reply
        }
    }

    // MARK: Recording and replay

    func recording(of sessionName: String?) throws -> JSONObject {
        let session = try sessions.session(sessionName)
        let recording = session.recording(plugins: sessions.loadedPlugins())
        return RecordingReply(recording: try recording.jsonValue).jsonObject
    }

    func replay(_ input: ReplayParameters) async throws -> JSONObject {
        let name = input.session ?? freeReplayName()
        let report: ReplayReport
        do {
            let recording = try SessionRecording(jsonValue: input.recording)
            report = try await sessions.replay(recording, as: name, to: input.to)
        } catch let error as RecordingError {
            throw NavigationError(.invalidRecording, error.message, parameters: ["message": .string(error.message)])
        }
        eventReplies.forget(name)
        return try JSONValueEncoder().encode(report).objectValue ?? [:]
    }

    /// The first of `replay-1`, `replay-2`, … that names no session.
    private func freeReplayName() -> String {
        let taken = Set(sessions.names)
        var number = 1
        while taken.contains("replay-\(number)") { number += 1 }
        return "replay-\(number)"
    }

    /// Follows a session: the watcher is made on the main actor, where the session lives, and its updates are sent
    /// from the connection's own executor, not with a hop to the main actor and back each. While the handler waits
    /// for the next update and the connection can take a reply at once, the session writes the event's reply itself
    /// as it tells its watchers (``Watcher/deliverDirectly(through:)``): a change then reaches a thousand watchers with
    /// a thousand writes, without waking a thousand tasks.
    nonisolated func watch(_ input: WatchParameters, replies: VarlinkReplyWriter) async throws -> JSONObject {
        guard replies.isStreaming else {
            // Without "more", Watch answers once with the current snapshot.
            let snapshot = try await snapshot(of: input.session)
            if input.changes == .mergePatch {
                return WatchReply.document(snapshot.document, coalesced: false).jsonObject
            }
            return WatchReply.snapshot(snapshot, coalesced: false).jsonObject
        }
        if input.changes == .mergePatch { return try await watchPatches(input, replies: replies) }
        let (watcher, session) = try await startWatching(input)
        defer { watcher.cancel() }
        let eventReplies = self.eventReplies
        watcher.deliverDirectly { event in
            guard let reply = try? eventReplies.reply(for: event, of: session) else { return false }
            return replies.sendImmediately(reply)
        }
        do {
            while let update = try await watcher.next() {
                if case .event(let event) = update {
                    try await replies.send(try eventReplies.reply(for: event, of: session))
                } else {
                    try await replies.send(Self.reply(for: update))
                }
            }
        } catch SessionWatcher.Ending.closed {
            return [:]
        } catch SessionWatcher.Ending.stopping {
            throw SessionsShutDown()
        }
        // Cancelled (the server stopping, or the client gone): the server ends it with ServiceShuttingDown.
        try Task.checkCancellation()
        return [:]
    }

    /// Follows a session as merge patches: the session's document first (``SessionSnapshot/document``), then, for
    /// each revision, the RFC 7386 merge patch that turns the document before it into the one after. A client that
    /// applies them holds the document a new `Watch` would start with. `resumeFrom` is not used: the first reply is
    /// always the whole document.
    nonisolated func watchPatches(_ input: WatchParameters, replies: VarlinkReplyWriter) async throws -> JSONObject {
        var fresh = input
        fresh.resumeFrom = nil
        let (watcher, _) = try await startWatching(fresh)
        defer { watcher.cancel() }
        var current: SessionSnapshot?
        var document = JSONValue.null
        do {
            while let update = try await watcher.next() {
                switch update {
                case .snapshot(let snapshot, let coalesced):
                    current = snapshot
                    document = snapshot.document
                    try await replies.send(WatchReply.document(document, coalesced: coalesced).jsonObject)
                case .event(let event):
                    guard var snapshot = current else { continue }
                    snapshot.apply(event)
                    current = snapshot
                    let next = snapshot.document
                    if let patch = JSONMergePatch.difference(from: document, to: next) {
                        try await replies.send(WatchReply.patch(patch).jsonObject)
                    }
                    document = next
                }
            }
        } catch SessionWatcher.Ending.closed {
            return [:]
        } catch SessionWatcher.Ending.stopping {
            throw SessionsShutDown()
        }
        // Cancelled (the server stopping, or the client gone): the server ends it with ServiceShuttingDown.
        try Task.checkCancellation()
        return [:]
    }

    private func startWatching(_ input: WatchParameters) throws -> (SessionWatcher, EventReplies.Source) {
        let session = try sessions.session(input.session)
        return (session.watch(from: input.resumeFrom), .init(name: session.name, incarnation: session.incarnation))
    }

    private func snapshot(of session: String?) throws -> SessionSnapshot {
        try sessions.session(session).snapshot
    }

    private nonisolated static func reply(for update: SessionWatcher.Update) -> JSONObject {
        switch update {
        case .snapshot(let snapshot, let coalesced): WatchReply.snapshot(snapshot, coalesced: coalesced).jsonObject
        case .event(let event): WatchReply.event(event).jsonObject
        }
    }
}

// MARK: - Event replies

/// The latest event of each session as a prepared `Watch` reply: the first watcher to send it serializes it, the others
/// send the same bytes. A change to a thousand watchers is serialized once, not a thousand times.
///
/// A reply is kept for one incarnation of a session (``NavigationSession/incarnation``): a session closed and opened
/// again under its name — by a reload, say, with its saved stack gone — counts its revisions again, and its watchers
/// must not be sent the closed one's reply of the same revision, nor a watcher of the closed one still sending its last
/// events replace the new one's. The reply last looked up is kept beside the table too: the watchers of one change ask
/// for it one after the other, and comparing two numbers (the incarnation and the revision) costs less than hashing
/// the name (about 300 instructions a watcher).
private final class EventReplies: Sendable {
    /// The session a watcher follows.
    struct Source: Sendable {
        var name: String
        var incarnation: UInt64
    }

    /// A class: the watchers of a change each take it, and a reference is cheaper to copy than the name and the reply.
    private final class Entry: Sendable {
        let source: Source
        let revision: UInt64
        let reply: VarlinkPreparedReply

        init(source: Source, revision: UInt64, reply: VarlinkPreparedReply) {
            self.source = source
            self.revision = revision
            self.reply = reply
        }

        /// Whether this is the reply of `revision` of `source`. The incarnation alone tells the session: no two
        /// sessions of the process, of one name or of two, share one (``NavigationSession/incarnation``).
        func holds(_ revision: UInt64, of source: Source) -> Bool {
            self.revision == revision && self.source.incarnation == source.incarnation
        }

        /// Whether the reply of `revision` of `source` is later than this one: of a later incarnation, or of a later
        /// revision of this one. A watcher that lags behind does not replace what the others are sending.
        func isBefore(_ revision: UInt64, of source: Source) -> Bool {
            self.source.incarnation == source.incarnation
                ? self.revision < revision : self.source.incarnation < source.incarnation
        }
    }

    private struct Latest {
        var bySession: [String: Entry] = [:]
        var last: Entry?
    }

    private let latest = Mutex(Latest())

    /// Drops what is kept of the session `name` (it was closed): memory only, as the next session of the name is
    /// another incarnation.
    func forget(_ session: String) {
        latest.withLock { latest in
            latest.bySession[session] = nil
            if latest.last?.source.name == session { latest.last = nil }
        }
    }

    func reply(for event: SessionEvent, of source: Source) throws -> VarlinkPreparedReply {
        let cached: VarlinkPreparedReply? = latest.withLock { latest in
            if let last = latest.last, last.holds(event.revision, of: source) { return last.reply }
            guard let entry = latest.bySession[source.name], entry.holds(event.revision, of: source) else { return nil }
            latest.last = entry
            return entry.reply
        }
        if let cached { return cached }
        let reply = try VarlinkPreparedReply(parameters: WatchReply.event(event).jsonObject)
        latest.withLock { latest in
            if latest.bySession[source.name].map({ $0.isBefore(event.revision, of: source) }) ?? true {
                let entry = Entry(source: source, revision: event.revision, reply: reply)
                latest.bySession[source.name] = entry
                latest.last = entry
            }
        }
        return reply
    }
}
