public import Logging
public import NavHostKit
public import NavHostStorage
import NavHostWire

// A session as the state folder keeps it (`SessionRecord`), and a session brought back from one after a restart.

extension NavigationSession {
    /// A screen that could not come back when a session was restored, and why.
    public struct DroppedScreen: Sendable, Hashable {
        public var id: ScreenID
        public var route: String
        public var reason: String
    }

    /// Restores a session from its record: the same screens with the same IDs, each ViewModel given back its
    /// restorable state before `onAppear`.
    ///
    /// One rule covers every screen that cannot come back — its feature is not loaded, or its route or parameters
    /// no longer fit: that screen and every screen above it are dropped, and ``droppedOnRestore`` says which and why.
    /// If even the root cannot come back, the session starts fresh at `configuration.root`. A screen whose restorable
    /// state no longer decodes comes back without it, started fresh on its route as after a reload
    /// (``startedFreshOnRestore``): the stack a client was answered stays. The revision continues above the record's
    /// reservation, so it is higher than any revision a client saw before the restart; a restore that dropped a
    /// screen or started one fresh counts as one more change.
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
                // A state that no longer decodes starts the screen fresh, as a reload's rebuild does.
                let (screen, refusal) = try makeScreen(
                    for: request,
                    presentation: entry.presentation,
                    id: entry.id,
                    restoring: entry.restorable
                )
                screen.openedBy = entry.openedBy
                if let refusal {
                    startedFreshOnRestore.append(entry.id)
                    self.logger.warning(
                        "A restored screen's saved state no longer decodes; it starts fresh",
                        metadata: [
                            "navhost.screen": "\(entry.id)", "navhost.route": "\(entry.route)", "error": "\(refusal)",
                        ]
                    )
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
        if !droppedOnRestore.isEmpty || !startedFreshOnRestore.isEmpty {
            revision += 1
        }
        for dropped in droppedOnRestore {
            self.logger.warning(
                "Dropped a screen on restore",
                metadata: [
                    "navhost.screen": "\(dropped.id)", "navhost.route": "\(dropped.route)",
                    "reason": "\(dropped.reason)",
                ]
            )
        }
        screens = restored
        recorder = FlightRecorder(capacity: options.flightRecorderCalls, base: recordingBase)
        for screen in restored { screen.appear() }
    }

    /// What survives a crash: the stack, the next screen number, and each screen's restorable state.
    ///
    /// The stack's record is built again only when a screen came or went or a restorable state changed since the
    /// last one: after most intents none did, and the record then shares its stack with the one the writer holds as
    /// durable, which it compares at once (`Array`'s `==` sees the same storage).
    public var record: SessionRecord {
        let stack: [SessionRecord.Screen]
        if let recordedStack, recordedStack.isCurrent(for: screens) {
            stack = recordedStack.stack
        } else {
            let built = RecordedStack(screens)
            recordedStack = built
            stack = built.stack
        }
        return SessionRecord(session: name, revision: revision, nextScreenNumber: nextScreenNumber, stack: stack)
    }
}

// MARK: - The stack's record

/// A stack as ``NavigationSession/record`` keeps it, with the screens and the restorable-state versions it was made
/// from.
@MainActor
struct RecordedStack {
    let stack: [SessionRecord.Screen]
    /// Held strongly: a screen popped since could otherwise be freed and a new one made at its address, which an
    /// identity kept without the object would take for the old one.
    private let screens: [Screen]
    /// Each screen's ``EncodedRestorableState/version`` when the stack was made; 0 for none. Empty for a final stack.
    private let versions: [UInt64]
    /// Whether the stack stands whatever its screens do: a closed session's take-back's (`init(_:standingFor:)`).
    private let isFinal: Bool

    init(_ screens: [Screen]) {
        var versions: [UInt64] = []
        versions.reserveCapacity(screens.count)
        stack = screens.map { screen in
            let restorable = screen.encodedRestorableState
            versions.append(restorable?.version ?? 0)
            return SessionRecord.Screen(
                id: screen.id,
                route: screen.route.id,
                parameters: screen.route.parameters,
                presentation: screen.presentation,
                restorable: restorable?.json,
                openedBy: screen.openedBy
            )
        }
        self.screens = screens
        self.versions = versions
        isFinal = false
    }

    /// `stack`, recorded for `screens` though not made from them: what a closed session's take-back restores, which
    /// builds none of the screens it holds (``NavigationSession/takeBackUnreleasedChanges()``). It is final: it
    /// stands whatever the screens' restorable states do afterwards (a closed screen's work is cancelled, not stopped,
    /// and may still change its ViewModel's state), until a later take-back records another. A stack made again from
    /// the screens the session still holds would leave out the ones it took back without building, and write the
    /// refused change after all.
    init(_ stack: [SessionRecord.Screen], standingFor screens: [Screen]) {
        self.stack = stack
        self.screens = screens
        versions = []
        isFinal = true
    }

    /// Whether `screens` are the ones the stack was made from, each with the restorable state it had then (a
    /// screen's ID, route, presentation and opener never change); always, for a final stack.
    func isCurrent(for screens: [Screen]) -> Bool {
        guard !isFinal else { return true }
        guard screens.count == self.screens.count else { return false }
        for index in screens.indices {
            guard screens[index] === self.screens[index],
                (screens[index].encodedRestorableState?.version ?? 0) == versions[index]
            else { return false }
        }
        return true
    }
}
