public import NavHostKit
public import NavHostWire

// Intents: delivered to a screen, answered once its ViewModel has handled them.

extension NavigationSession {
    /// Delivers an intent to a screen (the top one when `screen` is `nil`) and waits until it is handled.
    ///
    /// Other intents, to this screen or others, go on while this one's use cases are suspended.
    ///
    /// When a plugin reload rebuilds the screen while the intent is in flight, the old ViewModel's work is cancelled
    /// and the intent is delivered again to the rebuilt screen (same ID), whose answer is the one returned: an
    /// intent is never answered by code that no longer serves, nor lost to a reload. The old work's store writes
    /// under way end before that delivery, and those it begins later are refused (`Screen.close(itself:rebuilt:)`):
    /// nothing of it lands after the answer. (The daemon's stop ends the wait for those writes, and closes the rebuilt
    /// screen: the intent is answered `screenClosed`.)
    public func send(_ intent: IntentMessage, to screen: ScreenID? = nil) async throws(NavigationError) {
        try await startSending(intent, to: try self.screen(screen)).value
    }

    /// ``send(_:to:)`` to the screen at `position` on the stack (the top one for `nil`), started in the caller's
    /// stretch: see ``CallProgress``. The screen is taken from its place, not looked up again by its ID.
    func startSending(_ intent: IntentMessage, at position: Int?) throws(NavigationError) -> CallProgress<Void> {
        try startSending(intent, to: try screen(at: position))
    }

    /// The ID of `screen`, checked to be on the stack; the top screen's when `screen` is `nil`.
    public func screenID(of screen: ScreenID?) throws(NavigationError) -> ScreenID {
        try self.screen(screen).id
    }

    /// The snapshot of one screen (the top one when `screen` is `nil`).
    public func screenSnapshot(_ screen: ScreenID? = nil) throws(NavigationError) -> ScreenSnapshot {
        try self.screen(screen).snapshot
    }

    /// The JSON text of ``screenSnapshot(_:)``'s `jsonValue`, which the screen keeps until its state or error
    /// changes; `nil` when the screen is not on the stack.
    ///
    /// - Throws: ``JSONError`` when the state has no JSON form.
    public func serializedScreenSnapshot(_ screen: ScreenID) throws(JSONError) -> [UInt8]? {
        try self.screen(withID: screen)?.serializedSnapshot()
    }
}

// MARK: - Private Functions

extension NavigationSession {
    /// Delivers `intent` to `target`, and again to the screen a reload rebuilt in its place if it closes meanwhile,
    /// with what is left of the intent's time limit (`deadline`, once its first delivery started the clock).
    ///
    /// A refusal by a rebuilt screen (its new build has no such intent, or takes other arguments) follows the first
    /// delivery's work: it is marked so (``NavigationError/intentRan``), and answered once that work is on disk.
    fileprivate func startSending(
        _ intent: IntentMessage,
        to target: Screen,
        deadline: IntentDeadline? = nil,
        deliveredBefore: Bool = false
    ) throws(NavigationError) -> CallProgress<Void> {
        var target = target
        var deliveredBefore = deliveredBefore
        while true {
            let progress: CallProgress<Void>
            do {
                progress = try target.startSending(intent, deadline: deadline)
            } catch {
                target = try redeliveryTarget(
                    after: error,
                    from: target,
                    intent: intent,
                    deliveredBefore: deliveredBefore
                )
                deliveredBefore = true
                continue
            }
            guard case .suspended(let rest) = progress else { return progress }
            // Read in the stretch that started the intent: its clock is the last the screen started.
            let deadline = deadline ?? target.lastDeadline
            return .suspended { [self, target] () async throws(NavigationError) in
                do throws(NavigationError) {
                    try await rest()
                } catch {
                    let rebuilt = try redeliveryTarget(
                        after: error,
                        from: target,
                        intent: intent,
                        deliveredBefore: true
                    )
                    try await startSending(intent, to: rebuilt, deadline: deadline, deliveredBefore: true).value
                }
            }
        }
    }

    /// The rebuilt screen to deliver `intent` to again after `target` answered `error`; rethrows any other error.
    ///
    /// - Parameter deliveredBefore: Whether `target` itself had the intent delivered again: then a refusal of it is
    ///   marked as following the first delivery's work (``NavigationError/intentRan``).
    private func redeliveryTarget(
        after error: NavigationError,
        from target: Screen,
        intent: IntentMessage,
        deliveredBefore: Bool
    ) throws(NavigationError) -> Screen {
        var error = error
        if deliveredBefore { error.intentRan = true }
        switch error.code {
        case .screenClosed:
            // Only a screen closed to be rebuilt (a reload, a take-back of its state) hands its intent on: one that a
            // call closed (a Pop) answers ScreenClosed even if a take-back brings a screen of its ID back while the
            // caller waits for the intent's store writes, since its old work goes on, neither refused nor waited for.
            guard target.wasRebuilt, let rebuilt = screens.first(where: { $0.id == target.id && $0 !== target }) else {
                throw error
            }
            logger.debug(
                "Delivering an intent again to its rebuilt screen",
                metadata: ["navhost.screen": "\(target.id)", "navhost.intent": "\(intent.name)"]
            )
            return rebuilt
        case .intentFailed, .intentTimedOut:
            // The client is told which intent of which screen failed; what the ViewModel threw is for the
            // operator, in the log (the error's parameters carry only facts a client can act on).
            logger.warning(
                "\(error.message)",
                metadata: [
                    "navhost.screen": "\(target.id)", "navhost.route": "\(target.route.id)",
                    "navhost.intent": "\(intent.name)",
                ]
            )
            throw error
        default:
            throw error
        }
    }
}
