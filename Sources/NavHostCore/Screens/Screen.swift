import NavHostJSON
import NavHostKit
import NavHostWire
import Synchronization
@_spi(MainActorUtilities) import _Concurrency

/// One entry of a session's stack: a screen ID, a route, and the ViewModel behind it.
///
/// A screen starts its ViewModel's `onAppear` when it is put on the stack and tracks every task it starts for the
/// ViewModel. When it leaves the stack it calls `onDisappear`, cancels that work, and stops reporting state: nothing
/// a popped screen does afterwards reaches a client.
@MainActor
final class Screen {
    // MARK: Private Properties

    private let model: ScreenModel
    // Exclusivity: `inFlight` and `nextTaskNumber` skip the runtime's check of exclusive access (three per intent).
    // No two accesses to either can overlap: both are private to the screen, which is main-actor, and every access is
    // a read, a whole write, or the table's own insert or removal, which calls no code of ours or of a plugin while
    // it lasts. An insert adds a new task number (nothing is released); a removal drops a running task's entry (its
    // `ScreenTask` holds nothing whose release runs code: the task itself, still running, a race, a context the screen
    // holds too); `close()` takes the entries out before it lets them go.
    /// The tasks the screen runs for its ViewModel, by task number: each is cancelled when the screen closes, and the
    /// caller waiting on an intent's is answered then.
    @exclusivity(unchecked) private var inFlight = ScreenTasks()
    @exclusivity(unchecked) private var nextTaskNumber = 0
    /// Raised when the ViewModel's state was mutated since the screen last looked.
    private let pendingChange = StateChangeSignal()
    /// The session's context, bound for every task the screen runs for its ViewModel.
    private let context: SessionContext?
    /// What the ViewModel's `Router` hands its commands to; held here, the `Router` holds it weakly.
    private let navigation: ScreenNavigation?
    /// The way back to the screen for its tasks, their handles, its clocks and its observation, which may outlive it
    /// (not a weak reference, which would put every retain of the screen on the runtime's slow path).
    let backlink = Backlink<Screen>()

    // MARK: Public Properties

    let id: ScreenID
    let route: RouteRequest
    let presentation: Presentation
    /// The state as last reported to clients.
    private(set) var state: JSONValue {
        didSet { snapshotText = nil }
    }
    /// Whether the screen has left the stack.
    private(set) var isClosed = false
    /// Whether the screen left the stack through its own ViewModel's navigation (a save that pops, a close button).
    private(set) var closedItself = false
    /// Whether the screen left the stack for one built in its place under its ID (a plugin reload, a change taken
    /// back): the intents in flight on it are delivered there again (`NavigationSession.startSending`).
    private(set) var wasRebuilt = false
    /// Called (on the main actor, after the mutating stretch) when the state may have changed.
    var onStateMayHaveChanged: (@MainActor (Screen) -> Void)?
    /// The screen whose ViewModel opened this one through its Router (a push or a present), set before it appears;
    /// `nil` for one a client opened. Saved in the session's record, so it holds across a restart. A ViewModel may pop
    /// or dismiss, above its own screen, only screens its own opened (`NavigationSession.perform`).
    var openedBy: ScreenID?
    /// How many changes of the session were this screen's own (its state or its error, as clients were told), and the
    /// revision of the latest: a replay's settle leaves out the changes of a screen that never lets 50 ms pass without
    /// one, and names the screens that kept changing (`SessionRegistry+Replay.swift`). Counted by the session, on each
    /// state change: its accesses, one at a time on the main actor, go unchecked like the task fields above.
    @exclusivity(unchecked) private(set) var ownChanges: (count: UInt64, latest: UInt64) = (0, 0)

    // MARK: Initialization

    /// The intent time limit, on the clock it is measured with; `nil` for none.
    private let intentTimer: IntentTimer?
    /// Where the callers of intents answered `IntentTimedOut`, or whose screen another call closed or a rebuild took
    /// over, wait for the store writes under way then, so that the daemon's stop ends those waits
    /// (``StoreWriteWaits``); `nil` outside a registry (a test's session): they wait on the task itself (a closed
    /// screen's caller until its time limit at most).
    private let storeWriteWaits: StoreWriteWaits?
    /// The deadline of the intent whose clock started last: read by the session right after an intent's first stretch
    /// suspended, to give the same intent what is left of it if a reload rebuilds the screen.
    private(set) var lastDeadline: IntentDeadline?
    /// Set when an intent ran out of time; cleared when the next intent to the screen succeeds.
    private(set) var error: String?
    /// The error as clients last saw it.
    private var reportedError: String? {
        didSet { snapshotText = nil }
    }
    /// ``snapshot``'s JSON text once written, until the state or the error clients see changes.
    private var snapshotText: [UInt8]?

    init(
        id: ScreenID,
        route: RouteRequest,
        presentation: Presentation,
        model: ScreenModel,
        context: SessionContext? = nil,
        navigation: ScreenNavigation? = nil,
        intentTimeLimit: (Duration, any Clock<Duration>)? = nil,
        storeWriteWaits: StoreWriteWaits? = nil
    ) {
        self.storeWriteWaits = storeWriteWaits
        self.context = context
        self.navigation = navigation
        self.id = id
        self.route = route
        self.presentation = presentation
        self.model = model
        self.intentTimer = intentTimeLimit.map { IntentTimer(limit: $0.0, clock: $0.1) }
        self.state = (try? model.encodeState()) ?? .null
        backlink.point(to: self)
    }

    /// Runs where the last reference is let go, which must be the main actor: the screen's ``backlink`` is read there
    /// and is not atomic (``Backlink``; debug builds trap otherwise).
    deinit {
        backlink.clear()
    }

    // MARK: Lifecycle

    /// Starts observing state and runs `onAppear`.
    func appear() {
        trackState()
        run { model in await model.viewModel.onAppear() }
    }

    /// Leaves the stack: `onDisappear`, then cancels the screen's work and stops reporting state.
    ///
    /// - Parameters:
    ///   - itself: Whether the screen's own ViewModel asked for the navigation that closes it. Its intent in flight
    ///     then still answers with its own outcome; any other close answers `screenClosed`, once the store writes
    ///     that intent's work has under way at the close have ended (``startUntilClosed(deadline:handling:)``).
    ///   - rebuilt: Whether a screen built in its place under its ID takes over: the work of its intents in flight,
    ///     which are delivered there again, is given up as a timed-out intent's is (no store write of it begins from
    ///     now on), and each is delivered again once the writes its old work has under way have ended, so that
    ///     nothing of that work lands after the answer.
    func close(itself: Bool = false, rebuilt: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        closedItself = itself
        wasRebuilt = rebuilt
        // Bound as for a ViewModel's `init` (`NavigationSession.makeScreen`): a close comes in the stretch of whatever
        // asked for it, often another screen's intent, and a task `onDisappear` starts is not that intent's work (its
        // store writes would be refused once that intent ran out of time, ``IntentGuardedStore``).
        let model = self.model
        SessionContext.$bound.withValue(context) {
            ScreenTaskBinding.$task.withValue(nil) { model.viewModel.onDisappear() }
        }
        let tasks = inFlight.takeAll()
        // Before the cancel: the old work may go on once cancelled, and its writes are refused from the first.
        if rebuilt { for task in tasks where task.race != nil { task.abandon() } }
        // The intents whose callers are about to be answered `screenClosed`: each caller waits for the store writes its
        // work has under way now, not for those it may begin once cancelled. Nothing is refused. None of these has an
        // outcome yet: an intent leaves the table in the stretch its race gets one (its work's end, `expire`).
        if !rebuilt, !itself { for task in tasks where task.race != nil { task.countNoMoreStoreWrites() } }
        for task in tasks { task.cancel() }
        for task in tasks { task.race?.finish(.closed) }
    }

    // MARK: Public Functions

    /// Whether the screen runs no task for its ViewModel and has reported every change of its state. A replay
    /// waits for this before it compares: a task's last change is reported by the observation's own task, which may
    /// run after the task has ended.
    var isIdle: Bool { inFlight.isEmpty && !pendingChange.isRaised }

    var snapshot: ScreenSnapshot {
        ScreenSnapshot(id: id, route: route, presentation: presentation, state: state, error: reportedError)
    }

    /// ``snapshot`` as JSON text (its `jsonValue` serialized, written member by member), written once and kept until
    /// the state or the error clients see changes: every `Send` reply carries it, and most intents change neither.
    func serializedSnapshot() throws(JSONError) -> [UInt8] {
        if let snapshotText { return snapshotText }
        var text: [UInt8] = []
        try snapshot.appendJSON(to: &text)
        snapshotText = text
        return text
    }

    /// Returns the current state when it differs from what clients last saw, and records it as seen.
    ///
    /// A state equal (`==`) to the one last encoded is not encoded again; one that differs but encodes to the same
    /// JSON is no change either.
    func takeChangedState() -> JSONValue? {
        guard !isClosed else { return nil }
        guard let current = try? model.encodeStateIfChanged(), current != state else { return nil }
        state = current
        return current
    }

    /// Counts a change of the session the screen made to its state or its error, at `revision` (``ownChanges``).
    func countOwnChange(at revision: UInt64) {
        ownChanges = (ownChanges.count + 1, revision)
    }

    /// Returns the error (`.some(nil)` when it was cleared) when it differs from what clients last saw.
    func takeChangedError() -> String?? {
        guard !isClosed, error != reportedError else { return nil }
        reportedError = error
        return .some(error)
    }

    /// Delivers an intent and waits until the ViewModel has handled it, or until the screen leaves the stack.
    ///
    /// A screen closed by anything but its own navigation answers `screenClosed` once the store writes the intent's
    /// work had under way at the close have ended (its time limit, or the daemon's stop, ends that wait sooner), even
    /// if its use case ignores cancellation and never returns.
    ///
    /// - Throws: ``NavigationError`` — unknown intent, bad arguments, a failure the ViewModel threw, or
    ///   `screenClosed`.
    func send(_ message: IntentMessage) async throws(NavigationError) {
        try await startSending(message).value
    }

    /// ``send(_:)``, started in the caller's stretch: the intent's first stretch runs before this returns, and an
    /// intent that finished in it (most do) is answered without a task of the caller's.
    ///
    /// - Parameter deadline: The deadline of the same intent sent to the screen a reload rebuilt as this one: it gets
    ///   what is left of it, not a new time limit. `nil` for an intent sent for the first time.
    func startSending(
        _ message: IntentMessage,
        deadline: IntentDeadline? = nil
    ) throws(NavigationError) -> CallProgress<Void> {
        let progress = startUntilClosed(deadline: deadline, handling: message)
        // Not `progress.map`: its escaping closure would be allocated for every intent, though most finish here.
        switch progress {
        case .finished(let outcome):
            return .finished(try conclude(message, outcome))
        case .suspended(let rest):
            return .suspended { [self] () async throws(NavigationError) in try conclude(message, try await rest()) }
        }
    }

    /// Answers an intent's caller from how it ended.
    private func conclude(_ message: IntentMessage, _ outcome: IntentOutcome) throws(NavigationError) {
        // An intent's own changes are the session's before it is answered: the reply's revision and snapshot
        // include them (an intent that does not suspend runs in the caller's stretch, with no break for the
        // observation's own report to run in).
        takeStateChange()
        switch outcome {
        case .closed:
            throw .screenClosed(id.rawValue)
        case .timedOut(let limit):
            error = "\(message.name) did not finish within \(limit)"
            onStateMayHaveChanged?(self)
            throw NavigationError(
                .intentTimedOut,
                "\(message.name) did not finish within \(limit); it was cancelled",
                parameters: ["screen": .string(id.rawValue), "intent": .string(message.name)]
            )
        case .finished(nil):
            if error != nil {
                error = nil
                onStateMayHaveChanged?(self)
            }
            return
        case .finished(let notDelivered as IntentNotDelivered):
            throw navigationError(for: notDelivered.refusal)
        case .finished(let error as IntentError):
            // The ViewModel's own, thrown as the SDK's refusal: answered as one, once what it changed before is on
            // disk (it may have navigated, or changed its restorable state).
            var refusal = navigationError(for: error)
            refusal.intentRan = true
            throw refusal
        case .finished(let refusal as NavigationError):
            // The navigation the intent asked for was refused (`NavigationSession.perform`): its caller is told so
            // rather than answered as done. As `IntentFailed`, not as the refusal's own error: what the intent did
            // before stays (a save, a first push), where `StackTooDeep` alone would say nothing changed.
            throw NavigationError(
                .intentFailed,
                "\(message.name) asked for navigation that was refused: \(refusal.message)",
                parameters: [
                    "screen": .string(id.rawValue), "intent": .string(message.name),
                    "refusedNavigation": .string(refusal.code.name),
                ]
            )
        case .finished(let error?):
            throw NavigationError(
                .intentFailed,
                "\(message.name) failed: \(error)",
                parameters: ["screen": .string(id.rawValue), "intent": .string(message.name)]
            )
        }
    }

    /// The restorable state, when the ViewModel keeps one and it encodes.
    var restorableState: JSONValue? { encodedRestorableState?.json }

    /// ``restorableState`` with the number of its JSON form; `nil` when the ViewModel keeps none or it does not
    /// encode.
    var encodedRestorableState: EncodedRestorableState? {
        (try? model.encodeRestorableState()) ?? nil
    }

    /// Hands back state saved earlier.
    ///
    /// - Throws: Why the ViewModel did not take it: it keeps none, or the saved state does not decode (the decoding
    ///   error names the member, for the log an author reads after changing the state's type).
    func restore(_ saved: JSONValue) throws {
        try model.restoreState(saved)
        // Restoring happens before observation starts: take the restored state as what clients first see.
        state = (try? model.encodeState()) ?? state
    }
}

// MARK: - Private Functions

extension Screen {
    fileprivate func trackState() {
        guard !isClosed else { return }
        let pendingChange = self.pendingChange
        model.trackState { [backlink] in
            // Fires at the first mutation, before the value is stored: look again once the stretch is over, or when
            // the intent that made it returns, whichever comes first. In an intent's first stretch the screen looks
            // itself when it ends (`startUntilClosed`): no task of its own then.
            guard pendingChange.raise() else { return }
            Task { @MainActor in backlink.owner?.takeStateChange() }
        }
    }

    /// Reports a change of the ViewModel's state, once, if there was one since the last report.
    fileprivate func takeStateChange() {
        guard pendingChange.take(), !isClosed else { return }
        trackState()
        onStateMayHaveChanged?(self)
    }

    /// Runs `work` as a task the screen owns and cancels when it closes.
    /// A screen already closed runs nothing: a navigation inside another screen's `onAppear` may close this one
    /// before its own turn to appear.
    fileprivate func run(_ work: @escaping @MainActor (ScreenModel) async -> Void) {
        guard !isClosed else { return }
        _ = startTask(work)
    }

    /// Runs the ViewModel's handling of `message` as a task the screen owns, until the error it ends with (`nil` for
    /// none), or until the screen closes, whichever comes first; its first stretch runs before this returns. Awaiting
    /// a suspended result waits for the rest, and the waiting task's cancellation cancels the work too. A screen
    /// already closed runs nothing.
    ///
    /// The intent is handled in the task's own closure, not in one the caller passes
    /// (``startIntentTask(handling:reportingTo:)``).
    ///
    /// Not generic, like ``IntentRace``: a generic class's `deinit` runs unspecialized, looking up its metadata on every
    /// intent.
    fileprivate func startUntilClosed(
        deadline: IntentDeadline? = nil,
        handling message: IntentMessage
    ) -> CallProgress<IntentOutcome> {
        // Checked in the stretch that starts the work, not by the caller: the caller's `await` to get here may
        // have given the main actor up (see `IntentRace`), and the screen may have closed meanwhile. Work started after
        // `close()` would reach a ViewModel after its `onDisappear`, and nothing would cancel it.
        guard !isClosed else { return .finished(.closed) }
        let race = IntentRace()
        // The work reports its own result to the race: no second task waits on it.
        let task = pendingChange.lookingAfterward { startIntentTask(handling: message, reportingTo: race) }
        task.handle.race = race
        // The work's first stretch ran inside `startIntentTask`, before the race was handed over: a close in it is seen
        // here, and its writes under way are waited for as `close(itself:rebuilt:)` has them waited for.
        if isClosed, race.outcome == nil {
            if !closedItself, !wasRebuilt { task.handle.countNoMoreStoreWrites() }
            race.finish(.closed)
        }
        // The first stretch's own change, looked at as it ends: the look that a task would otherwise be started for
        // (`trackState`), one per intent that changes the state.
        takeStateChange()
        // Finished already (most intents are): nothing to wait for, nor to cancel, and no clock to start (a clock
        // started would start the timer's task, to find the intent gone when it first ran).
        // Closed by another call in that stretch with a store write under way: its caller waits for it, on the clock.
        var waitsForWritesUnderWay = false
        if let finished = race.outcome, !isClosedByItsOwnWork(finished) {
            // Looked at for a close only: an intent that finished reads nothing more.
            if case .closed = finished, task.handle.hasStoreWritesToWaitForAfterClose {
                waitsForWritesUnderWay = true
            } else {
                return .finished(Self.outcome(finished, of: task.handle))
            }
        }
        var ownClock: Task<Void, Never>?
        if let intentTimer, race.outcome == nil || waitsForWritesUnderWay {
            let limit = intentTimer.limit
            let expire: @MainActor () -> Void = { [backlink] in
                // Finished in time (the caller may not have resumed yet to stop the clock): its caller is answered
                // with its outcome, and the tasks it started keep their navigation. Its screen closed by another call:
                // its caller waits for the store writes under way then no longer than its time limit.
                guard race.outcome == nil else { return task.handle.endWaitForStoreWritesAfterClose() }
                race.finish(.timedOut(limit))
                // Cancelled and abandoned: if it never returns, it no longer counts as the screen's work, and the
                // navigation it asks for from now on is dropped (its caller is told it did not finish).
                task.handle.abandon()
                task.task.cancel()
                backlink.owner?.inFlight.remove(task.number)
            }
            if let deadline {
                ownClock = intentTimer.start(remainingOf: deadline, expire: expire)
                lastDeadline = deadline
            } else {
                lastDeadline = intentTimer.start(task.number, expire: expire)
            }
        } else {
            lastDeadline = nil
        }
        return .suspended { [self] in
            defer {
                intentTimer?.finish(task.number)
                ownClock?.cancel()
            }
            // A cancellation handler costs the task a status record, added and removed under its lock: only here,
            // where there is something to wait for.
            let outcome = await withTaskCancellationHandler {
                await race.wait()
            } onCancel: {
                task.task.cancel()
            }
            // Closed by its own navigation: the intent's own outcome still stands.
            if isClosedByItsOwnWork(outcome) { return Self.outcome(.finished(await task.task.value), of: task.handle) }
            // Given up on: the store writes it began before are what it did, on disk before its caller hears that it
            // did not finish; those it begins from now on are refused (``IntentGuardedStore``). Until the daemon's
            // stop at most (``StoreWriteWaits``): a write that never ends holds the reply, not the stop.
            if case .timedOut = outcome { await storeWritesEnded(of: task.handle, before: "its IntentTimedOut reply") }
            // Closed for the screen built in its place, where it is delivered again: the old work's writes under way
            // land before that delivery; those it begins from now on are refused (``close(itself:rebuilt:)``). Until
            // the daemon's stop at most (``StoreWriteWaits``), which closes the rebuilt screen too: no delivery then.
            if case .closed = outcome, wasRebuilt {
                await storeWritesEnded(of: task.handle, before: "its delivery to the rebuilt screen")
            }
            // Closed by another call: the store writes its work had under way then are what it did, on disk before its
            // caller hears `screenClosed`; until its time limit at most (`expire`), or the daemon's stop
            // (``StoreWriteWaits``). Those it begins afterwards are neither waited for nor refused.
            if case .closed = outcome, task.handle.waitsOnlyForStoreWritesUnderWayAtClose {
                await storeWritesEnded(of: task.handle, before: "its ScreenClosed reply")
            }
            return Self.outcome(outcome, of: task.handle)
        }
    }

    /// Returns once no store write `task`'s work counts is under way, or once its wait is ended (its time limit after
    /// a close, the daemon's stop): through the registry's ``StoreWriteWaits``, which the stop ends, or on the task
    /// itself outside a registry. `reason` names what waits, for the log.
    private func storeWritesEnded(of task: ScreenTask, before reason: String) async {
        if let storeWriteWaits {
            await storeWriteWaits.storeWritesEnded(of: task, before: reason)
        } else {
            await task.storeWritesEnded()
        }
    }

    /// Whether `outcome` says the screen closed, and its own work closed it.
    private func isClosedByItsOwnWork(_ outcome: IntentOutcome) -> Bool {
        if case .closed = outcome { return closedItself }
        return false
    }

    /// The outcome its caller is answered with: handled without an error, but a navigation it asked for was refused
    /// (`NavigationSession.perform` notes it on the task): that is its outcome, not "done".
    private static func outcome(_ outcome: IntentOutcome, of task: ScreenTask) -> IntentOutcome {
        if case .finished(nil) = outcome, let refusal = task.refusedNavigation { return .finished(refusal) }
        return outcome
    }

    /// Starts `work` as the screen's task, at once: it runs on the caller's stretch of the main actor until it first
    /// suspends (an intent that does not suspend has finished when this returns), and it is cancelled when the screen
    /// closes while it runs. ``startIntentTask(handling:reportingTo:)`` repeats this body for intents: change both.
    private func startTask<Result: Sendable>(
        _ work: @escaping @MainActor (ScreenModel) async -> Result
    ) -> (number: Int, task: Task<Result, Never>, handle: ScreenTask) {
        let (number, handle) = registerTask()
        let model = self.model
        // The ViewModel's work draws random numbers and reads time through its session (`SessionContext`), and the
        // tasks it starts inherit that: the handle, bound as the task's, carries the context (one task-local bound,
        // not two: each binding is an async closure, a frame and a push and pop of the task's local values). Bound
        // in the task, not around its start: a task copies the values bound where it is made, and a synchronous
        // closure made on the main actor checks at run time that it runs there, which outside a task (an intent
        // started in the read that brought it) is a slow check.
        //
        // `Task.startOnMainActor`, the runtime's older (and, to the compiler, deprecated) name for a `Task.immediate`
        // on the main actor: Swift 6.3.1 gives a `Task.immediate` the optimizer does not inline, as here, a
        // task-executor preference it was not asked for, and every hop in the task then takes the task's
        // status-record lock. Both of a call's tasks started this way cost about 6,800 instructions less per `Send`
        // (docs/architecture.md; `Benchmarks/Profiling/task-immediate-preference/run.sh` shows the lock).
        let task = Task.startOnMainActor { [backlink] in
            defer { backlink.owner?.inFlight.remove(number) }
            return await ScreenTaskBinding.$task.withValue(handle) { await work(model) }
        }
        handle.setTask(task)
        return (number, task, handle)
    }

    /// ``startTask(_:)`` for an intent: the task's own closure has the ViewModel handle `message` and reports the error
    /// it ends with (`nil` for none) to `race`, and returns it.
    ///
    /// Not `startTask` with a closure that handles the intent: that closure cost an allocated context, an async frame
    /// and a `swift_task_switch` to the main actor the task is already on, per intent (callgrind, session 53).
    private func startIntentTask(
        handling message: IntentMessage,
        reportingTo race: IntentRace
    ) -> (number: Int, task: Task<(any Error)?, Never>, handle: ScreenTask) {
        let (number, handle) = registerTask()
        let model = self.model
        // As in `startTask`: bound in the task, started by the runtime's older name for a `Task.immediate` on the main
        // actor.
        let task = Task.startOnMainActor { [backlink] () -> (any Error)? in
            defer { backlink.owner?.inFlight.remove(number) }
            return await ScreenTaskBinding.$task.withValue(handle) {
                let result: (any Error)?
                do {
                    try await model.handle(message)
                    result = nil
                } catch {
                    result = error
                }
                race.finish(.finished(result))
                return result
            }
        }
        handle.setTask(task)
        return (number, task, handle)
    }

    /// Numbers a task the screen is about to start and registers its handle: before the work starts, which may end it
    /// (and unregister it) before the task is returned. A cancel asked for in that first stretch (the work closed the
    /// screen) is applied once the task is returned (``ScreenTask/setTask(_:)``).
    private func registerTask() -> (number: Int, handle: ScreenTask) {
        let number = nextTaskNumber
        nextTaskNumber += 1
        let handle = ScreenTask(screen: self, context: context)
        inFlight.insert(handle, as: number)
        return (number, handle)
    }

    fileprivate func navigationError(for error: IntentError) -> NavigationError {
        switch error {
        case .unknownIntent(let name):
            // The intents it does take, for the client to say what was meant (a misspelt name, most often).
            let names = model.intentNames()
            var parameters: JSONObject = ["intent": .string(name)]
            if !names.isEmpty { parameters["intents"] = .array(names.map { .string($0) }) }
            return NavigationError(.intentNotFound, error.description, parameters: parameters)
        case .invalidArguments(let name, let reason):
            return NavigationError(
                .invalidIntentArguments,
                error.description,
                parameters: ["intent": .string(name), "reason": .string(reason)]
            )
        @unknown default:
            // Only an SDK newer than this daemon's has other cases, and the registry refuses plugins built for one.
            return NavigationError(.invalidIntentArguments, error.description)
        }
    }
}

// MARK: - What the screen keeps

/// Says that a ViewModel's state was mutated: raised by the observation (on whatever thread mutates), taken once by
/// the screen.
private final class StateChangeSignal: Sendable {
    private let raised = Atomic<Bool>(false)
    /// Whether a stretch runs at whose end the screen looks for a change itself (``lookingAfterward(_:)``).
    private let looksAfterward = Atomic<Bool>(false)

    /// Raises the signal; `false` when the screen looks for it anyway at the end of the stretch that runs now, `true`
    /// when the caller must have it looked at.
    func raise() -> Bool {
        raised.store(true, ordering: .releasing)
        return !looksAfterward.load(ordering: .acquiring)
    }

    /// Runs `body`, a stretch at whose end the caller looks for a change itself: a raise during it asks for no look.
    func lookingAfterward<Result>(_ body: () -> Result) -> Result {
        let outer = looksAfterward.exchange(true, ordering: .acquiringAndReleasing)
        defer { looksAfterward.store(outer, ordering: .releasing) }
        return body()
    }

    /// Whether it was raised since the last take.
    var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Whether it was raised since the last take; lowers it.
    func take() -> Bool { raised.exchange(false, ordering: .acquiringAndReleasing) }
}

/// The tasks a screen runs for its ViewModel, by task number, in the order they started: `onAppear`'s, and the intents
/// of callers still waiting for them (a timed-out intent's is removed when its time runs out).
///
/// An array, not a dictionary: a screen runs one task at a time or a few, and the dictionary's hashing on every
/// intent's insert and removal cost about 430 instructions (callgrind). Removal looks from the newest end: an intent
/// that finishes in its first stretch (most do) is the newest entry, so its removal costs one comparison however many
/// older tasks still run (with the time limit off, intents whose work never returns pile up).
private struct ScreenTasks {
    private var entries: [(number: Int, task: ScreenTask)] = []

    var isEmpty: Bool { entries.isEmpty }

    mutating func insert(_ task: ScreenTask, as number: Int) {
        entries.append((number, task))
    }

    /// Removes the task numbered `number`, if it is there.
    mutating func remove(_ number: Int) {
        for index in entries.indices.reversed() where entries[index].number == number {
            entries.remove(at: index)
            return
        }
    }

    /// Empties the table, and returns the tasks it held.
    mutating func takeAll() -> [ScreenTask] {
        defer { entries.removeAll() }
        return entries.map(\.task)
    }
}
