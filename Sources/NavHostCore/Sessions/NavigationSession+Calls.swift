public import NavHostKit
public import NavHostWire

// A client's calls, made the one way every front end's call and every replayed call is made, and filed with the
// session's flight recorder.

extension NavigationSession {
    /// Makes a client's call and files it with the flight recorder, done or refused.
    ///
    /// The recorder keeps the call, its outcome, and the stack it left: the one the next call finds (``FlightRecorder``).
    /// What the features draw and read while the call builds their screens and runs their intents is the session's
    /// (``SessionContext``, which `makeScreen` and `Screen` bind).
    ///
    /// - Returns: The change the call made, or `nil` for one that changed nothing (`PopToRoot` on the root, `PopTo`
    ///   the top screen, an intent that changed no state).
    @discardableResult
    public func handle(_ call: SessionCall) async throws(NavigationError) -> Change? {
        try await startHandling(call).value
    }

    /// ``handle(_:)``, started in the caller's stretch: a call that does not suspend (every call but an intent whose
    /// ViewModel awaits) has finished, and is filed, when this returns. See ``CallProgress``.
    ///
    /// The call is taken, not copied: a call that finishes here is moved into the recorder's entry. Each copy of a
    /// call goes through the value witnesses of the SDK's resilient `IntentMessage` and `JSONObject`.
    public func startHandling(_ call: consuming SessionCall) throws(NavigationError) -> CallProgress<Change?> {
        settleRecording()
        let progress: CallProgress<Change?>
        do {
            progress = try startPerforming(&call)
        } catch {
            file(call, refusedWith: error)
            throw error
        }
        // Taken apart, not matched in place: a match copies the progress (the SDK's resilient types in its change)
        // to read its case.
        let rest: @MainActor @Sendable () async throws(NavigationError) -> Change?
        switch consume progress {
        case .finished(let change):
            file(call, refusedWith: nil)
            return .finished(change)
        case .suspended(let suspended):
            rest = suspended
        }
        return .suspended { [self, call] () async throws(NavigationError) in
            do throws(NavigationError) {
                let change = try await rest()
                file(call, refusedWith: nil)
                return change
            } catch {
                file(call, refusedWith: error)
                throw error
            }
        }
    }

    /// The session's flight recording: its base stack and its last calls, for `Recording` and `navctl record`.
    ///
    /// - Parameter plugins: The plugins loaded now, to name in the header.
    public func recording(plugins: [SessionRecording.Plugin]) -> SessionRecording {
        settleRecording()
        return SessionRecording(
            header: SessionRecording.Header(
                session: name,
                root: configuredRoot,
                plugins: plugins,
                base: recorder.base,
                dropped: recorder.dropped
            ),
            calls: recorder.heldCalls
        )
    }

    /// Writes the flight recording to `directory` too, as it is made (``FlightRecorderFile``); `plugins` names the
    /// plugins loaded, for each file's header. A session replaying a recording keeps it in memory only.
    public func keepRecording(in directory: String, plugins: @escaping @MainActor () -> [SessionRecording.Plugin]) {
        guard recorder.isEnabled, !context.isReplaying else { return }
        recorder.file = FlightRecorderFile(
            directory: directory,
            header: SessionRecording.Header(
                session: name,
                root: configuredRoot,
                plugins: [],
                base: recorder.base,
                dropped: 0
            ),
            capacity: recorder.capacity,
            plugins: plugins,
            logger: { [logger] message in logger.warning("\(message)") }
        )
    }

    /// Writes down what the latest call left, as the next call finds it: when a call comes, a recording is taken, or
    /// the session closes.
    func settleRecording() {
        recorder.settleLatest(revision: revision, stack: stackAsRecorded, drawn: context.takeDrawn())
    }

    /// The stack as a recording keeps it, each screen whose work is under way marked busy.
    var stackAsRecorded: [RecordedScreen] {
        screens.map { screen in
            RecordedScreen(
                screen.snapshot,
                openedBy: screen.openedBy.flatMap { opener in screens.firstIndex { $0.id == opener } },
                busy: !screen.isIdle
            )
        }
    }

    /// ``handle(_:)`` for a `Navigate` or `Present` of a replay's base stack: the screen it opens counts as opened by
    /// the ViewModel of the screen at `opener` (as in the session recorded), set before it appears, as a ViewModel's
    /// own push sets it, so the record written for the push holds it.
    func handle(_ call: SessionCall, openedByScreenAt opener: Int?) async throws(NavigationError) -> Change? {
        let outer = navigatingScreen
        navigatingScreen = opener.flatMap { screens.indices.contains($0) ? screens[$0].id : nil }
        defer { navigatingScreen = outer }
        return try await handle(call)
    }

    /// The stack and revision as a recording starts from them.
    var recordingBase: SessionRecording.Base {
        SessionRecording.Base(revision: revision, stack: stackAsRecorded)
    }

    /// The screen ID at `position` on the stack, the top one for `nil`.
    public func screenID(at position: Int?) throws(NavigationError) -> ScreenID {
        try screen(at: position).id
    }

    /// Where the screen `id` is on the stack, root first.
    public func position(of id: ScreenID) throws(NavigationError) -> Int {
        guard let position = screens.firstIndex(where: { $0.id == id }) else { throw .screenNotFound(id.rawValue) }
        return position
    }
}

// MARK: - Private Functions

extension NavigationSession {
    /// One access to the recorder, which checks that it records at all and finds the stack to share: each access to a
    /// class's stored property is an exclusivity check (`swift_beginAccess`), and every `Send` is filed.
    fileprivate func file(_ call: consuming SessionCall, refusedWith error: NavigationError?) {
        recorder.file(call, refusedWith: error?.code.name, at: revision, stack: stackAsRecorded)
    }

    /// Starts `call`, which is taken apart and put back together, whether it throws or not: matched in place, a
    /// `send`'s intent would be copied out (through the value witnesses of the SDK's resilient `IntentMessage`) to be
    /// read, and the copy destroyed after.
    fileprivate func startPerforming(_ call: inout SessionCall) throws(NavigationError) -> CallProgress<Change?> {
        switch consume call {
        case .send(let intent, let position):
            defer { call = .send(intent, position: position) }
            return try startSending(intent, at: position).map { _ in nil }
        case let other:
            defer { call = other }
            return .finished(try performNavigation(other))
        }
    }

    /// Makes a call that navigates: every call but `send`.
    private func performNavigation(_ call: SessionCall) throws(NavigationError) -> Change? {
        switch call {
        case .navigate(let request): return try navigate(to: request)
        case .present(let request): return try present(request)
        case .pop: return try pop()
        case .popToRoot: return popToRoot()
        case .popTo(let request): return try popTo(request)
        case .dismiss: return try dismiss()
        case .replace(let requests): return try replace(with: requests)
        case .send: preconditionFailure("startPerforming(_:) sends intents itself")
        }
    }
}
