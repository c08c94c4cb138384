public import Logging
import NavHostJSON
public import NavHostKit
import NavHostStorage
public import NavHostWire
import Synchronization

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
/// A ViewModel's ``Router`` acts on the session of its screen, through that screen's own handler (`ScreenNavigation`),
/// always on the top of the stack. A router whose screen has left the stack (or was rebuilt by a reload) is ignored; a
/// pop or dismiss that would close a screen above the router's own that its ViewModel did not open is refused
/// (`ScreenNotOnTop`), and an intent whose navigation is refused is answered `IntentFailed` naming the refusal.
@MainActor
public final class NavigationSession: NavigationHandler {
    /// The outcome of a change: the revision it produced and the event watchers received.
    public struct Change: Sendable, Hashable {
        public var revision: UInt64
        public var event: SessionEvent
    }

    // MARK: State

    let catalog: FeatureCatalog
    let logger: Logger
    /// The way back to the session for its screens, watchers and writers, which may outlive it (not a weak reference,
    /// which would put every retain of the session on the runtime's slow path).
    let backlink = Backlink<NavigationSession>()
    var screens: [Screen] = []
    var nextScreenNumber = 1
    var log: SessionEventLog
    /// The attached watchers, each with its starting revision: one table, so a change to many watchers looks none of
    /// them up.
    var watchers: [ObjectIdentifier: AttachedWatcher] = [:]
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
    var navigatingScreen: ScreenID?
    /// The session's last calls (`NavigationSession+Calls.swift`).
    var recorder: FlightRecorder
    /// The stack of the last ``record`` built, and what it was built from (`NavigationSession+Restoring.swift`).
    var recordedStack: RecordedStack?

    // MARK: Public Properties

    /// The session's name.
    public let name: String
    /// Tells this session from every other the process opened, of the same name or not: a session closed and opened
    /// again is another incarnation, whose revisions start again. Counts up from 1.
    public nonisolated let incarnation: UInt64 = nextIncarnation.add(1, ordering: .relaxed).newValue
    /// What the session lends its features' work: random numbers, recorded or replayed, and time.
    public let context: SessionContext
    /// The route the session was configured to start at; a session whose root is unloaded restarts there.
    public let configuredRoot: RouteRequest
    /// The revision of the last change; 0 for a session that has only its root.
    public internal(set) var revision: UInt64 = 0
    var changeObservers: [@MainActor (NavigationSession, SessionEvent) -> Void] = []

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
    ///   - firstScreenNumber: The number of its root's ID (`s<number>`): past every screen an earlier session of the
    ///     same name made, so that an ID a client kept from it never reaches a screen of this one.
    ///   - logger: Where refusals and dropped commands are logged.
    public convenience init(
        configuration: SessionConfiguration,
        catalog: FeatureCatalog,
        options: SessionOptions = SessionOptions(),
        firstRevision: UInt64 = 0,
        firstScreenNumber: Int = 1,
        logger: Logger
    ) throws(NavigationError) {
        try self.init(
            withoutScreens: configuration,
            catalog: catalog,
            options: options,
            logger: logger
        )
        revision = firstRevision
        nextScreenNumber = max(firstScreenNumber, 1)
        let root = try makeScreen(for: configuration.root, presentation: .push)
        screens = [root]
        recorder = FlightRecorder(capacity: options.flightRecorderCalls, base: recordingBase)
        root.appear()
    }

    /// Sets up everything but the stack, which the public initializers fill.
    init(
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
        backlink.point(to: self)
    }

    /// Runs where the last reference is let go, which must be the main actor: the session's ``backlink`` is read there
    /// and is not atomic (``Backlink``; debug builds trap otherwise).
    deinit {
        backlink.clear()
    }

    /// Set when a `CloseSession` closed it and emptied its record: nothing it changes afterwards is written.
    var isClosedDurably = false

    /// How many times, once closed, it was kept for the registry's settle, or given a write more there, after its
    /// close: ``SessionRegistry/keepForTheSettle(_:afterACallersFailure:)`` bounds it.
    var lateKeepsForTheSettle = 0

    /// Whether the registry holds it as the session open under its name; only ``OpenSessions`` sets it.
    var isOpen = false

    /// Whether ``close(stopping:)`` ran: a take-back builds no screen in it from then on
    /// (``takeBackUnreleasedChanges()``), and it carries out no navigation (``perform(_:from:)``).
    private(set) var isClosed = false

    /// The record after a take-back whose catch-up event is held for the persistence's retry, without a save of its
    /// own, until a write that holds its state succeeds (`NavigationSession+Durability.swift`).
    var catchUpHeldForTheRetry: SessionRecord?

    /// The task that awaits the last write a take-back queued over a failed write of the session, and handles its
    /// outcome (`SessionRegistry.queueOverTheFailedWrite`): a caller refused for that failure is answered once it ends.
    var writeOverTheFailure: Task<Void, Never>?

    /// How many take-backs the session's current run of failed writes made: the registry logs the first and counts
    /// the others until the run ends (`SessionRegistry+FailureRuns.swift`).
    var takeBacksInTheFailureRun = 0

    /// The error of the last take-back of the session's current run of failed writes, which the line that ends the run
    /// says (`SessionRegistry+FailureRuns.swift`).
    var lastErrorInTheFailureRun: String?

    /// The screens a restore could not bring back, and why; empty for a session that was not restored.
    public internal(set) var droppedOnRestore: [DroppedScreen] = []

    /// The screens a restore brought back without their restorable state, which no longer decoded: each started
    /// fresh on its route. Empty for a session that was not restored.
    public internal(set) var startedFreshOnRestore: [ScreenID] = []
    /// The screens the last ``rebuildScreens(showing:)`` lost: removed (the new build cannot show them, or one below
    /// them), or started fresh (their state no longer decodes).
    public internal(set) var lostOnRebuild: [ScreenID] = []

    // MARK: Public Functions

    /// Whether no screen of the session runs a task for its ViewModel (an intent, `onAppear`), and every change of
    /// their state has been recorded.
    public var isIdle: Bool { screens.allSatisfy(\.isIdle) }

    /// Whether every screen is idle but those whose place holds a screen `recorded` marks `busy`: the screens whose
    /// state a replay compares with `recorded` (``RecordedScreen/matches(_:)``), and those it has no recorded screen
    /// for, whose work may still close them.
    func isIdle(besidesScreensBusyIn recorded: [RecordedScreen]) -> Bool {
        screens.indices.allSatisfy { position in
            screens[position].isIdle || (position < recorded.count && recorded[position].busy)
        }
    }

    /// Whether the stack holds the screens `recorded` does, each by its route, parameters and presentation: what a
    /// replay compares of every screen, a screen recorded busy included (``RecordedScreen/matches(_:)``, which
    /// compares them the same way, ``RecordedScreen/shows(route:parameters:presentation:)``).
    func holdsTheScreens(of recorded: [RecordedScreen]) -> Bool {
        screens.count == recorded.count
            && zip(screens, recorded).allSatisfy { screen, recorded in
                recorded.shows(
                    route: screen.route.id,
                    parameters: screen.route.parameters,
                    presentation: screen.presentation
                )
            }
    }

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
        self.options.storeWriteWaits = kept.storeWriteWaits
    }

    /// Closes every screen and ends every watcher (``Watcher/Ending/closed``, or ``Watcher/Ending/stopping`` when
    /// the daemon is `stopping`); the session must not be used afterwards. The flight recording on disk gets its
    /// latest call first.
    public func close(stopping: Bool = false) {
        isClosed = true
        settleRecording()
        for screen in screens.reversed() { screen.close() }
        for attached in watchers.values { attached.watcher.finish(with: stopping ? .stopping : .closed) }
        watchers.removeAll()
    }

}

// MARK: - Building screens and recording changes

extension NavigationSession {
    func screen(_ id: ScreenID?) throws(NavigationError) -> Screen {
        guard let id else { return topScreen }
        guard let screen = screen(withID: id) else { throw .screenNotFound(id.rawValue) }
        return screen
    }

    /// The screen `id` when it is on the stack.
    ///
    /// Takes the ID itself, not an optional one: wrapping the SDK's `ScreenID` (a resilient type) in an optional
    /// copies it through the runtime (the loop, like the one it replaced, reads the stack once).
    func screen(withID id: ScreenID) -> Screen? {
        // A loop, not `first(where:)`: a closure made on the main actor checks at run time that it runs there, and
        // outside a task (a call started in the read that brought it) that check is a slow one.
        for screen in screens where screen.id == id { return screen }
        return nil
    }

    /// The screen at `position` on the stack, the top one for `nil`.
    func screen(at position: Int?) throws(NavigationError) -> Screen {
        let screens = self.screens  // read once: see screen(withID:)
        guard let position else { return screens[screens.count - 1] }
        guard screens.indices.contains(position) else { throw .screenNotFound("#\(position)") }
        return screens[position]
    }

    /// The top screen; the stack always has its root.
    private var topScreen: Screen {
        let screens = self.screens  // read once: see screen(withID:)
        return screens[screens.count - 1]
    }

    func makeScreen(
        for request: RouteRequest,
        presentation: Presentation,
        id restoredID: ScreenID? = nil
    ) throws(NavigationError) -> Screen {
        let id = restoredID ?? ScreenID("s\(nextScreenNumber)")
        let navigation = ScreenNavigation(session: self)
        // A composition root may draw random numbers or read the clock while it builds the ViewModel. The screen
        // task of an intent that pushes this screen is not its: a task the new ViewModel starts in its `init` is
        // the new screen's work, whatever becomes of that intent (``ScreenTask/current``).
        let made = SessionContext.$bound.withValue(context) { () -> Result<any ViewModel, NavigationError> in
            ScreenTaskBinding.$task.withValue(nil) {
                do throws(NavigationError) {
                    return .success(try catalog.makeViewModel(for: request, navigation: navigation, screen: id))
                } catch {
                    return .failure(error)
                }
            }
        }
        if case .failure(let error) = made, error.code == .viewModelFailed {
            // A feature's own fault: the client is told the route, the operator what went wrong.
            logger.warning("\(error.message)", metadata: ["navhost.route": "\(request.id)"])
        }
        let viewModel = try made.get()
        if restoredID == nil { nextScreenNumber += 1 }
        let screen = Screen(
            id: id,
            route: request,
            presentation: presentation,
            model: ScreenModel.of(viewModel),
            context: context,
            navigation: navigation,
            intentTimeLimit: options.intentTimeLimit.map { ($0, options.clock) },
            storeWriteWaits: options.storeWriteWaits
        )
        navigation.screen = screen.backlink
        screen.onStateMayHaveChanged = { [backlink] screen in backlink.owner?.stateMayHaveChanged(screen) }
        return screen
    }

    /// The screen `id` for `request` holding the restorable state `saved`, or, when its ViewModel refuses it, a new
    /// screen in its place (the refused state may have been half taken) with the reason it was refused.
    func makeScreen(
        for request: RouteRequest,
        presentation: Presentation,
        id: ScreenID,
        restoring saved: JSONValue?
    ) throws(NavigationError) -> (screen: Screen, refusal: (any Error)?) {
        let screen = try makeScreen(for: request, presentation: presentation, id: id)
        guard let saved else { return (screen, nil) }
        do {
            try screen.restore(saved)
            return (screen, nil)
        } catch {
            return (try makeScreen(for: request, presentation: presentation, id: id), error)
        }
    }

    fileprivate func stateMayHaveChanged(_ screen: Screen) {
        guard screens.contains(where: { $0 === screen }) else { return }
        if let state = screen.takeChangedState() {
            screen.countOwnChange(at: record(.stateChanged(screen.id, state)).revision)
        }
        if let error = screen.takeChangedError() {
            screen.countOwnChange(at: record(.errorChanged(screen.id, error)).revision)
        }
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
}

// MARK: - Watchers and incarnations

/// The incarnation the next session gets, less one.
private let nextIncarnation = Atomic<UInt64>(0)

/// A watcher of the session, and its starting revision: an event at or below it is already in the snapshot the
/// watcher started with. A class, so that a watcher that coalesces moves its start without copying the table it is
/// read from.
final class AttachedWatcher {
    let watcher: SessionWatcher
    var start: UInt64

    init(_ watcher: SessionWatcher, start: UInt64) {
        self.watcher = watcher
        self.start = start
    }
}
