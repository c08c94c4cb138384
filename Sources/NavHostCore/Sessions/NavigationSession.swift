public import Logging
public import NavHostJSON
public import NavHostKit

/// One independent navigation stack: the screens, root first, and the revision they are at.
///
/// Every change — push, pop, replace, present, dismiss, a ViewModel's state change — increments ``revision`` by one
/// and produces one ``SessionEvent``. A `replace` is one change however many screens it swaps. A request that is
/// refused throws a ``NavigationError`` and changes nothing.
///
/// The stack is one list. `navigate` pushes, `present` pushes in the modal layer, `pop` removes the top screen,
/// `dismiss` removes the topmost modal screen and everything above it, `popToRoot` leaves only the root, and
/// `popTo` removes the screens above the topmost one showing a route. Intents go to the top screen unless a screen
/// ID is named.
///
/// The session is also every screen's ``NavigationHandler``: a ViewModel's ``Router`` acts on the session of its
/// screen, always on the top of the stack, and a router whose screen has left the stack is ignored.
@MainActor
public final class NavigationSession: NavigationHandler {
    /// The outcome of a change: the revision it produced and the event watchers received.
    public struct Change: Sendable, Hashable {
        public var revision: UInt64
        public var event: SessionEvent
    }

    // MARK: Private Properties

    private let catalog: FeatureCatalog
    let logger: Logger
    var screens: [Screen] = []
    private var nextScreenNumber = 1
    private var log: SessionEventLog
    private var watchers: [ObjectIdentifier: SessionWatcher] = [:]
    /// Each watcher's starting revision: an event at or below it is already in the snapshot it started with.
    private var watcherStarts: [ObjectIdentifier: UInt64] = [:]
    /// Changes recorded but not yet durable, held back from watchers (see `NavigationSession+Durability.swift`).
    var unreleased: [SessionEvent] = []
    /// What watchers have been told: the state after the last released change.
    var releasedRecord: SessionRecord?
    /// How many times unsaved changes were taken back (`NavigationSession+Durability.swift`): a call that saw this
    /// number change while it waited cannot tell whether its own change survived.
    public internal(set) var takeBacks = 0
    /// How the session bounds its stack, its watchers and its intents; ``updateOptions(_:)`` changes them.
    public private(set) var options: SessionOptions
    /// The screen whose Router is being served right now, if any.
    private var navigatingScreen: ScreenID?
    /// The session's last calls (`NavigationSession+Calls.swift`).
    var recorder: FlightRecorder

    // MARK: Public Properties

    /// The session's name.
    public let name: String
    /// What the session lends its features' work: random numbers, recorded or replayed, and time.
    public let context: SessionContext
    /// The route the session was configured to start at; a session whose root is unloaded restarts there.
    public let configuredRoot: RouteRequest
    /// The revision of the last change; 0 for a session that has only its root.
    public private(set) var revision: UInt64 = 0
    private var changeObservers: [@MainActor (NavigationSession, SessionEvent) -> Void] = []

    /// The whole session now.
    public var snapshot: SessionSnapshot {
        SessionSnapshot(session: name, revision: revision, stack: screens.map(\.snapshot))
    }

    /// The route IDs of the stack, root first.
    public var routeIDs: [String] { screens.map(\.route.id) }

    // MARK: Initialization

    /// Creates a session whose stack holds the root screen of `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The session's name and root route.
    ///   - catalog: The features that build screens.
    ///   - options: Event history, watcher bound, intent time limit.
    ///   - firstRevision: The revision it starts at: above every revision an earlier session of the same name gave
    ///     out, so that a client resuming a watch never takes the new session for the old one.
    ///   - logger: Where refusals and dropped commands are logged.
    public convenience init(
        configuration: SessionConfiguration,
        catalog: FeatureCatalog,
        options: SessionOptions = SessionOptions(),
        firstRevision: UInt64 = 0,
        logger: Logger
    ) throws(NavigationError) {
        try self.init(
            withoutScreens: configuration,
            catalog: catalog,
            options: options,
            logger: logger
        )
        revision = firstRevision
        let root = try makeScreen(for: configuration.root, presentation: .push)
        screens = [root]
        recorder = FlightRecorder(capacity: options.flightRecorderCalls, base: recordingBase)
        root.appear()
    }

    /// A screen that could not come back when a session was restored, and why.
    public struct DroppedScreen: Sendable, Hashable {
        public var id: ScreenID
        public var route: String
        public var reason: String
    }

    /// Restores a session from its record: the same screens with the same IDs, each ViewModel given back its
    /// restorable state before `onAppear`.
    ///
    /// One rule covers every screen that cannot come back — its feature is not loaded, its route or parameters no
    /// longer fit, or its restorable state no longer decodes: that screen and every screen above it are dropped,
    /// and ``droppedOnRestore`` says which and why. If even the root cannot come back, the session starts fresh at
    /// `configuration.root`. The revision continues above the record's reservation, so it is higher than any
    /// revision a client saw before the restart; a restore that dropped anything counts as one more change.
    public convenience init(
        restoring record: SessionRecord,
        configuration: SessionConfiguration,
        catalog: FeatureCatalog,
        options: SessionOptions = SessionOptions(),
        logger: Logger
    ) throws(NavigationError) {
        try self.init(
            withoutScreens: configuration,
            catalog: catalog,
            options: options,
            logger: logger
        )
        nextScreenNumber = max(record.nextScreenNumber, 1)
        // Above anything given out before the crash, even changes that were never written.
        revision = max(record.reservedRevision, record.revision)
        var restored: [Screen] = []
        for (index, entry) in record.stack.enumerated() {
            let request = RouteRequest(id: entry.route, parameters: entry.parameters)
            do throws(NavigationError) {
                let screen = try makeScreen(for: request, presentation: entry.presentation, id: entry.id)
                if let saved = entry.restorable, !screen.restore(saved) {
                    throw NavigationError(.viewModelFailed, "its restorable state no longer decodes")
                }
                restored.append(screen)
            } catch {
                droppedOnRestore = record.stack[index...].map {
                    DroppedScreen(
                        id: $0.id,
                        route: $0.route,
                        reason: $0 == entry ? error.message : "a screen below it was dropped"
                    )
                }
                break
            }
        }
        if restored.isEmpty {
            restored = [try makeScreen(for: configuration.root, presentation: .push)]
        }
        if !droppedOnRestore.isEmpty {
            revision += 1
            for dropped in droppedOnRestore {
                self.logger.warning(
                    "Dropped a screen on restore",
                    metadata: [
                        "navhost.screen": "\(dropped.id)", "navhost.route": "\(dropped.route)",
                        "reason": "\(dropped.reason)",
                    ]
                )
            }
        }
        screens = restored
        recorder = FlightRecorder(capacity: options.flightRecorderCalls, base: recordingBase)
        for screen in restored { screen.appear() }
    }

    /// Sets up everything but the stack, which the public initializers fill.
    private init(
        withoutScreens configuration: SessionConfiguration,
        catalog: FeatureCatalog,
        options: SessionOptions,
        logger: Logger
    ) throws(NavigationError) {
        self.name = configuration.name
        self.configuredRoot = configuration.root
        self.catalog = catalog
        self.options = options
        self.log = SessionEventLog(capacity: options.eventHistory)
        self.context = options.replaying.map(SessionContext.init(replaying:)) ?? SessionContext()
        self.recorder = FlightRecorder(capacity: 0, base: SessionRecording.Base(revision: 0, stack: []))
        var logger = logger
        logger[metadataKey: "navhost.session"] = .string(configuration.name)
        self.logger = logger
    }

    /// The screens a restore could not bring back, and why; empty for a session that was not restored.
    public private(set) var droppedOnRestore: [DroppedScreen] = []

    /// What survives a crash: the stack, the next screen number, and each screen's restorable state.
    public var record: SessionRecord {
        SessionRecord(
            session: name,
            revision: revision,
            nextScreenNumber: nextScreenNumber,
            stack: screens.map { screen in
                SessionRecord.Screen(
                    id: screen.id,
                    route: screen.route.id,
                    parameters: screen.route.parameters,
                    presentation: screen.presentation,
                    restorable: screen.restorableState
                )
            }
        )
    }

    // MARK: Public Functions

    /// Pushes a screen for `request` on top of the stack.
    @discardableResult
    public func navigate(to request: RouteRequest) throws(NavigationError) -> Change {
        try push(request, presentation: .push)
    }

    /// Shows a screen for `request` in the modal layer.
    @discardableResult
    public func present(_ request: RouteRequest) throws(NavigationError) -> Change {
        try push(request, presentation: .modal)
    }

    /// Pops the top screen.
    @discardableResult
    public func pop() throws(NavigationError) -> Change {
        guard screens.count > 1 else { throw NavigationError(.cannotPopRoot, "only the root is on the stack") }
        return removeScreens(from: screens.count - 1)
    }

    /// Pops every screen above the root; `nil` when the root is already alone.
    @discardableResult
    public func popToRoot() -> Change? {
        guard screens.count > 1 else { return nil }
        return removeScreens(from: 1)
    }

    /// Pops the screens above the topmost one showing `request`'s route (and its parameters, when given);
    /// `nil` when that screen is already on top.
    @discardableResult
    public func popTo(_ request: RouteRequest) throws(NavigationError) -> Change? {
        let match = screens.lastIndex { screen in
            screen.route.id == request.id
                && (request.parameters.isEmpty || screen.route.parameters == request.parameters)
        }
        guard let match else {
            throw NavigationError(
                .routeNotOnStack,
                "no screen on the stack shows \(request)",
                parameters: ["route": .string(request.id)]
            )
        }
        guard match < screens.count - 1 else { return nil }
        return removeScreens(from: match + 1)
    }

    /// Closes the topmost modal screen and everything above it.
    @discardableResult
    public func dismiss() throws(NavigationError) -> Change {
        guard let modal = screens.lastIndex(where: { $0.presentation == .modal }) else {
            throw NavigationError(.noModalPresented, "no modal screen is shown")
        }
        return removeScreens(from: modal)
    }

    /// Replaces the whole stack, root included, with screens for `requests`, as one change.
    ///
    /// Every ViewModel is built before anything changes: if one route is refused, the stack stays as it was.
    @discardableResult
    public func replace(with requests: [RouteRequest]) throws(NavigationError) -> Change {
        guard !requests.isEmpty else { throw NavigationError(.emptyStack, "a stack needs at least a root") }
        guard requests.count <= options.maxStackDepth else { throw .stackTooDeep(options.maxStackDepth) }
        var fresh: [Screen] = []
        for request in requests {
            fresh.append(try makeScreen(for: request, presentation: .push))
        }
        for screen in screens.reversed() { screen.close(itself: screen.id == navigatingScreen) }
        screens = fresh
        let change = record(.replaced(fresh.map(\.snapshot)))
        for screen in fresh { screen.appear() }
        return change
    }

    /// Rebuilds, in place, every screen showing one of `routes` with the ViewModel the catalog builds now: after a
    /// plugin's new build replaced the old one. One change, a `replaced` event of the whole stack.
    ///
    /// Each rebuilt screen keeps its ID, route, parameters, presentation and position. The restorable state the old
    /// ViewModel encodes is given to the new one before `onAppear`; a ViewModel that keeps none, or that refuses
    /// it, starts fresh on the same route. The old ViewModel gets `onDisappear` (its intents in flight answer
    /// `screenClosed`), the new one `onAppear`. A screen the catalog can no longer build (the new build dropped
    /// its route or refuses its parameters) is removed with every screen above it; if that is the root, the
    /// session restarts at ``configuredRoot``.
    ///
    /// - Returns: The change, or `nil` when no screen shows one of `routes` (or nothing could be built at all,
    ///   which leaves the stack as it was).
    @discardableResult
    public func rebuildScreens(showing routes: Set<String>) -> Change? {
        guard screens.contains(where: { routes.contains($0.route.id) }) else { return nil }
        var rebuilt: [Screen] = []
        for old in screens {
            guard routes.contains(old.route.id) else {
                rebuilt.append(old)
                continue
            }
            guard let fresh = rebuild(old) else { break }
            rebuilt.append(fresh)
        }
        if rebuilt.isEmpty {
            guard let root = try? makeScreen(for: configuredRoot, presentation: .push) else {
                logger.error("Cannot rebuild the session's root after a reload; the old screens stay")
                return nil
            }
            rebuilt = [root]
        }
        return swapStack(for: rebuilt)
    }

    /// Removes every screen showing one of `routes` and every screen above it, after their plugin was unloaded:
    /// one `popped` change, or, when the root goes, one `replaced` change to a stack holding a fresh root at
    /// ``configuredRoot``.
    ///
    /// - Returns: The change, or `nil` when no screen shows one of `routes` (or the configured root cannot be
    ///   built, which leaves the stack as it was).
    @discardableResult
    public func removeScreens(showing routes: Set<String>) -> Change? {
        guard let first = screens.firstIndex(where: { routes.contains($0.route.id) }) else { return nil }
        if first > 0 { return removeScreens(from: first) }
        guard let root = try? makeScreen(for: configuredRoot, presentation: .push) else {
            logger.error("Cannot restart the session at its configured root; the old screens stay")
            return nil
        }
        return swapStack(for: [root])
    }

    /// Delivers an intent to a screen (the top one when `screen` is `nil`) and waits until it is handled.
    ///
    /// Other intents, to this screen or others, go on while this one's use cases are suspended.
    ///
    /// When a plugin reload rebuilds the screen while the intent is in flight, the old ViewModel's work is cancelled
    /// and the intent is delivered again to the rebuilt screen (same ID), whose answer is the one returned: an
    /// intent is never answered by code that no longer serves, nor lost to a reload.
    public func send(_ intent: IntentMessage, to screen: ScreenID? = nil) async throws(NavigationError) {
        var target = try self.screen(screen)
        while true {
            do {
                return try await target.send(intent)
            } catch let error where error.code == .screenClosed {
                guard let rebuilt = screens.first(where: { $0.id == target.id && $0 !== target }) else { throw error }
                logger.debug(
                    "Delivering an intent again to its rebuilt screen",
                    metadata: ["navhost.screen": "\(target.id)", "navhost.intent": "\(intent.name)"]
                )
                target = rebuilt
            }
        }
    }

    /// The snapshot of one screen (the top one when `screen` is `nil`).
    public func screenSnapshot(_ screen: ScreenID? = nil) throws(NavigationError) -> ScreenSnapshot {
        try self.screen(screen).snapshot
    }

    /// Starts a watcher: a snapshot first, or, when resuming from `revision`, the events after it if they are
    /// still held (else a snapshot); then one event per revision.
    public func watch(from resumeRevision: UInt64? = nil) -> SessionWatcher {
        let first: SessionWatcher.Update
        var missed: [SessionEvent] = []
        // Resuming needs every event after `resumeRevision`; while changes wait for the disk, some are not in the
        // log yet, so the watcher starts from a snapshot instead (which shows them).
        if let resumeRevision, unreleased.isEmpty, let held = log.events(after: resumeRevision, current: revision) {
            missed = held
            first = missed.isEmpty ? .snapshot(snapshot, coalesced: false) : .event(missed.removeFirst())
        } else {
            first = .snapshot(snapshot, coalesced: false)
        }
        let watcher = SessionWatcher(limit: options.watcherLimit, first: first) { [weak self] watcher in
            let id = ObjectIdentifier(watcher)
            Task { @MainActor in
                self?.watchers[id] = nil
                self?.watcherStarts[id] = nil
            }
        }
        for event in missed { watcher.deliver(event) { snapshot } }
        watchers[ObjectIdentifier(watcher)] = watcher
        watcherStarts[ObjectIdentifier(watcher)] = revision
        return watcher
    }

    /// Whether no screen of the session runs a task for its ViewModel (an intent, `onAppear`).
    public var isIdle: Bool { screens.allSatisfy(\.isIdle) }

    /// Calls `observer` after every change, before watchers hear of it (persistence, tests).
    public func observeChanges(_ observer: @escaping @MainActor (NavigationSession, SessionEvent) -> Void) {
        changeObservers.append(observer)
    }

    /// How many watchers are attached.
    public var watcherCount: Int { watchers.count }

    /// Puts new bounds in force (a configuration reload): the stack depth for the next push, the intent time limit
    /// for the next intent, the watcher bound for the next watcher. The event history, the flight recorder and a
    /// replay's random numbers keep what the session opened with.
    public func updateOptions(_ options: SessionOptions) {
        let kept = self.options
        self.options = options
        self.options.eventHistory = kept.eventHistory
        self.options.flightRecorderCalls = kept.flightRecorderCalls
        self.options.flightRecorderDirectory = kept.flightRecorderDirectory
        self.options.replaying = kept.replaying
    }

    /// Closes every screen and ends every watcher; the session must not be used afterwards. The flight recording
    /// on disk gets its latest call first.
    public func close() {
        settleRecording()
        for screen in screens.reversed() { screen.close() }
        for watcher in watchers.values { watcher.finish(with: .closed) }
        watchers.removeAll()
        watcherStarts.removeAll()
    }

    // MARK: NavigationHandler

    public func perform(_ command: NavigationCommand, from screenID: ScreenID) -> Bool {
        guard screens.contains(where: { $0.id == screenID }) else {
            logger.debug(
                "Dropped navigation from a screen that left the stack",
                metadata: ["navhost.screen": "\(screenID)", "navhost.command": "\(command)"]
            )
            return false
        }
        navigatingScreen = screenID
        defer { navigatingScreen = nil }
        do throws(NavigationError) {
            switch command {
            case .navigate(let request): try navigate(to: request)
            case .pop: try pop()
            case .popToRoot: popToRoot()
            case .popTo(let request): try popTo(request)
            case .replace(let requests): try replace(with: requests)
            case .present(let request): try present(request)
            case .dismiss: try dismiss()
            @unknown default:
                // Only an SDK newer than this daemon's has other commands, and the registry refuses such plugins.
                logger.warning("Refused an unknown navigation command", metadata: ["navhost.command": "\(command)"])
                return false
            }
            return true
        } catch {
            logger.warning(
                "Refused navigation from a ViewModel",
                metadata: ["navhost.screen": "\(screenID)", "navhost.command": "\(command)", "error": "\(error)"]
            )
            return false
        }
    }
}

// MARK: - Private Functions

extension NavigationSession {
    fileprivate func screen(_ id: ScreenID?) throws(NavigationError) -> Screen {
        guard let id else { return screens[screens.count - 1] }
        guard let screen = screens.first(where: { $0.id == id }) else { throw .screenNotFound(id.rawValue) }
        return screen
    }

    func makeScreen(
        for request: RouteRequest,
        presentation: Presentation,
        id restoredID: ScreenID? = nil
    ) throws(NavigationError) -> Screen {
        let id = restoredID ?? ScreenID("s\(nextScreenNumber)")
        // A composition root may draw random numbers or read the clock while it builds the ViewModel.
        let made = SessionContext.$current.withValue(context) { () -> Result<any ViewModel, NavigationError> in
            do throws(NavigationError) {
                return .success(try catalog.makeViewModel(for: request, navigation: self, screen: id))
            } catch {
                return .failure(error)
            }
        }
        let viewModel = try made.get()
        if restoredID == nil { nextScreenNumber += 1 }
        let screen = Screen(
            id: id,
            route: request,
            presentation: presentation,
            model: ScreenModel(viewModel),
            context: context,
            intentTimeLimit: options.intentTimeLimit.map { ($0, options.clock) }
        )
        screen.onStateMayHaveChanged = { [weak self] screen in self?.stateMayHaveChanged(screen) }
        return screen
    }

    fileprivate func push(_ request: RouteRequest, presentation: Presentation) throws(NavigationError) -> Change {
        guard screens.count < options.maxStackDepth else { throw .stackTooDeep(options.maxStackDepth) }
        let screen = try makeScreen(for: request, presentation: presentation)
        screens.append(screen)
        let change = record(.pushed(screen.snapshot))
        screen.appear()
        return change
    }

    /// A new screen in place of `old`, from the catalog as it is now, holding `old`'s restorable state when the new
    /// ViewModel takes it; `nil` when the catalog cannot build the route any more.
    fileprivate func rebuild(_ old: Screen) -> Screen? {
        do throws(NavigationError) {
            let fresh = try makeScreen(for: old.route, presentation: old.presentation, id: old.id)
            guard let saved = old.restorableState, !fresh.restore(saved) else { return fresh }
            logger.notice(
                "A rebuilt screen refused its old state; it starts fresh",
                metadata: ["navhost.screen": "\(old.id)", "navhost.route": "\(old.route.id)"]
            )
            return try makeScreen(for: old.route, presentation: old.presentation, id: old.id)
        } catch {
            logger.warning(
                "A screen cannot be rebuilt after a reload; it and the screens above it are removed",
                metadata: ["navhost.screen": "\(old.id)", "navhost.route": "\(old.route.id)", "error": "\(error)"]
            )
            return nil
        }
    }

    /// Makes `stack` the session's stack as one `replaced` change: screens that leave get `onDisappear`, topmost
    /// first; screens that arrive get `onAppear`, root first. Screens in both stay as they are.
    fileprivate func swapStack(for stack: [Screen]) -> Change {
        let staying = Set(stack.map(ObjectIdentifier.init))
        let leaving = screens.filter { !staying.contains(ObjectIdentifier($0)) }
        let alreadyThere = Set(screens.map(ObjectIdentifier.init))
        for screen in leaving.reversed() { screen.close() }
        screens = stack
        let change = record(.replaced(stack.map(\.snapshot)))
        for screen in stack where !alreadyThere.contains(ObjectIdentifier(screen)) { screen.appear() }
        return change
    }

    /// Removes `screens[index...]`, topmost first, as one change.
    fileprivate func removeScreens(from index: Int) -> Change {
        let removed = Array(screens[index...].reversed())
        screens.removeSubrange(index...)
        for screen in removed { screen.close(itself: screen.id == navigatingScreen) }
        return record(.popped(removed.map(\.id)))
    }

    fileprivate func stateMayHaveChanged(_ screen: Screen) {
        guard screens.contains(where: { $0 === screen }) else { return }
        if let state = screen.takeChangedState() { record(.stateChanged(screen.id, state)) }
        if let error = screen.takeChangedError() { record(.errorChanged(screen.id, error)) }
    }

    @discardableResult
    func record(_ change: SessionEvent.Change) -> Change {
        revision += 1
        let event = SessionEvent(revision: revision, change: change)
        if holdsEventsUntilDurable {
            unreleased.append(event)
        } else {
            tellWatchers(event)
        }
        for observer in changeObservers { observer(self, event) }
        return Change(revision: revision, event: event)
    }

    /// Sends `event` to every watcher that started before it, and keeps it for watchers that resume.
    func tellWatchers(_ event: SessionEvent) {
        log.append(event)
        for (id, watcher) in watchers where event.revision > watcherStarts[id] ?? 0 {
            watcher.deliver(event) { snapshot }
        }
    }
}
