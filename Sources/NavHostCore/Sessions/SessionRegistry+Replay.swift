import NavHostJSON
import NavHostKit
import NavHostStorage
public import NavHostWire

// Replaying a flight recording in a fresh session: the same calls, the recorded random numbers, a virtual clock,
// and every result compared with the recorded one.

extension SessionRegistry {
    /// Replays `recording` in a new session called `name`, opened durably like an `OpenSession` one, and compares
    /// each call's outcome and the stack it leaves with what was recorded.
    ///
    /// The session starts with the recording's base stack: its root is the base's root, the screens above it are pushed
    /// or presented again, each marked as opened by the screen whose ViewModel opened it in the session recorded. Its
    /// features draw the recorded random numbers and run on a virtual clock (``SessionContext``). After each call the
    /// replay lets the session settle — every screen idle, but one recorded busy only until no new revision came for
    /// 50 ms (the own changes of a screen that keeps changing left out, once a settle gave up on a screen of its
    /// route) and the stack holds the recorded screens — and compares the stack then with the one the recorded call
    /// left (the one the next call found, ``FlightRecorder``). Each call is made durable before the next, as it would
    /// be for a client. The replay stops at the first difference.
    ///
    /// - Parameters:
    ///   - to: The recorded revision to stop at: the calls that reached past it are not made, and the session stays
    ///     open for inspection (time travel). `nil` replays every call and closes the session.
    /// - Throws: What ``openDurably(_:replaying:)`` throws when the session cannot be opened; what a write throws
    ///   (`StorageFailed`) when a replayed call cannot be made durable, after taking the session out again: a refused
    ///   replay leaves no session behind.
    public func replay(
        _ recording: SessionRecording,
        as name: String,
        to: UInt64? = nil
    ) async throws -> ReplayReport {
        // A plugin missing, or loaded in another version than recorded, is a warning: the replay goes on and says what
        // it finds.
        let warnings = Self.pluginWarnings(recorded: recording.header.plugins, loaded: loadedPlugins())
        guard let root = recording.header.base.stack.first else {
            throw RecordingError("the recording's base stack is empty")
        }
        let session = try await openDurably(
            OpenedSessionsFile.Entry(name: name, root: root.route, parameters: root.parameters),
            replaying: recording.randomNumbers
        )
        let number = nextReplayNumber
        nextReplayNumber += 1
        replaysUnderWay[name] = number
        defer { if replaysUnderWay[name] == number { replaysUnderWay[name] = nil } }
        do {
            return try await drive(session, through: recording, to: to, replay: number, warnings: warnings)
        } catch {
            // Refused half-way (a write that failed): like any refused call, it leaves nothing behind. Before, its
            // session stayed open and listed, at a half-replayed stack, restarts included.
            await withdraw(session, replay: number)
            throw error
        }
    }

    // MARK: Private

    /// Replays `recording`'s base stack and calls in `session`, the session ``replay(_:as:to:)`` opened for replay
    /// `number`, and closes it or leaves it open as `to` says.
    private func drive(
        _ session: NavigationSession,
        through recording: SessionRecording,
        to: UInt64?,
        replay number: Int,
        warnings: [String]
    ) async throws -> ReplayReport {
        let name = session.name
        let base = recording.header.base
        var warnings = warnings
        var report = ReplayReport(
            session: name,
            calls: 0,
            revision: base.revision,
            difference: nil,
            warnings: [],
            leftOpen: to != nil
        )
        // Whether settling waits for the work of the screens whose state is compared. A screen whose work did not end
        // within the 5 s (it ended in the session recorded) would cost each later call as much: from then on the
        // replay waits for 50 ms without a new revision only, as for a screen recorded busy, and says so.
        var waitsForWork = true
        // Whether settling waits, while a screen recorded busy works, for the stack to hold the recorded screens. A
        // stack that did not within the 5 s differs, and the comparison says so; should base pushes follow, they are
        // not made to wait for it again.
        var waitsForScreens = true
        // The routes whose screens' own changes (state, error) settling leaves out of its 50 ms without a change: a
        // screen that changes all the time (a clock ticking every 10 ms, a progress bar) lets no 50 ms pass, and would
        // cost each call the 5 s while it is open. Only the screens of those routes that keep changing are left out,
        // each only while it does (``OwnChangesLeftOut``): every other change, theirs opening and closing included,
        // and those of a screen of such a route that goes still, still count, so the work of the screens around them
        // is waited for as before.
        var changingRoutes: Set<String> = []
        func settle(comparingWith recorded: [RecordedScreen], after: @autoclosure () -> String) async {
            let settling = await self.settle(
                session,
                toCompareWith: recorded,
                waitingForWork: waitsForWork,
                waitingForScreens: waitsForScreens,
                leavingOut: changingRoutes
            )
            switch settling {
            case .settled:
                return
            case .screensDiffer:
                waitsForScreens = false
            case .workGoesOn:
                waitsForWork = false
                warnings.append(
                    "a screen's work, ended in the session recorded, was still under way 5 s after \(after()): from "
                        + "then on the replay waited for screens' work only until 50 ms passed without a change"
                )
            case .quietNeverCame(let changing):
                let routes = Set(changing.map(\.route))
                changingRoutes.formUnion(routes)
                let named = changing.map { "\($0.place) (\($0.route))" }.joined(separator: ", ")
                warnings.append(
                    "the session never went 50 ms without a change in the 5 s after \(after()), screen"
                        + (changing.count == 1 ? "" : "s") + " \(named) changing all the time: from then on the "
                        + "50 ms without a change the replay waited for left out the changes screens of "
                        + routes.sorted().joined(separator: ", ") + " made to their own state"
                )
            }
        }
        // The base screens pushed so far: a push that fails (its plugin missing) shifts the screens after it.
        var pushed = Array(base.stack.prefix(1))
        for screen in base.stack.dropFirst() {
            try await abandonIfStopping(name, replay: number)
            let request = RouteRequest(id: screen.route, parameters: screen.parameters)
            await settle(
                comparingWith: pushed,
                after: "screen \(pushed.count - 1) (\(pushed[pushed.count - 1].route)) of the base stack was opened"
            )
            // After the settling, which may take seconds: a screen pushed on a closed session would never disappear.
            try stopIfClosed(session, calls: 0)
            // A screen a ViewModel opened stays its to close, as in the session recorded.
            let opened = try? await session.handle(
                screen.presentation == .modal ? .present(request) : .navigate(request),
                openedByScreenAt: screen.openedBy
            )
            if opened != nil { pushed.append(screen) }
        }
        try await commit(session)
        await settle(comparingWith: pushed, after: "the base stack was opened")
        report.difference = ReplayReport.Difference(
            call: 0,
            method: nil,
            recorded: (base.revision, nil, base.stack),
            replayed: (session.revision, nil, session.stackAsRecorded)
        )
        if report.difference == nil {
            for (index, recorded) in recording.calls.enumerated() {
                if let to, recorded.revision > to { break }
                try await abandonIfStopping(name, replay: number)
                try stopIfClosed(session, calls: index)
                var replayedError: String?
                do throws(NavigationError) {
                    try await session.handle(recorded.call)
                } catch {
                    replayedError = error.code.name
                }
                try await commit(session)
                await settle(comparingWith: recorded.stack, after: "call \(index + 1)")
                report.calls = index + 1
                report.revision = recorded.revision
                report.difference = ReplayReport.Difference(
                    call: index + 1,
                    method: recorded.call.method,
                    recorded: (recorded.revision, recorded.error, recorded.stack),
                    replayed: (session.revision, replayedError, session.stackAsRecorded)
                )
                if report.difference != nil { break }
            }
        }
        if report.difference == nil, session.context.unusedScript > 0 {
            warnings.append("the features drew \(session.context.unusedScript) fewer random numbers than recorded")
        }
        report.warnings = warnings
        try await abandonIfStopping(name, replay: number)
        try stopIfClosed(session, calls: report.calls)
        if to == nil {
            do {
                guard !configuredNames.contains(name) else { throw NavigationError.sessionConfigured(name) }
                // Unless a client closed it meanwhile (and may have opened another of the name).
                if replaysUnderWay[name] == number { try await closeDurably(name, evenStopping: true) }
            } catch let error as NavigationError where error.code == .sessionConfigured {
                try await handOver(session, to: &report)
            }
        } else if configuredNames.contains(name) {
            try await handOver(session, to: &report)
        } else {
            // The session stays open as the reply describes it: what the last settling changed is durable too.
            try await commit(session)
        }
        return report
    }

    /// Takes out, durably when the disk allows, the session of replay `number` that was refused: unless a client
    /// closed it meanwhile (the name may be another session's now) or the configuration declared its name.
    private func withdraw(_ session: NavigationSession, replay number: Int) async {
        guard replaysUnderWay[session.name] == number, isOpen(session), !configuredNames.contains(session.name) else {
            return
        }
        do {
            try await closeDurably(session.name, evenStopping: true)
        } catch {
            // Closed but its record not emptied: closeDurably logged it. Still open: the list of opened sessions
            // could not be written, and a restart brings the session back.
            guard isOpen(session) else { return }
            logger.error(
                "Cannot take out the session of a replay that was refused",
                metadata: ["navhost.session": "\(session.name)", "error": "\(error)"]
            )
        }
    }

    /// A reload (SIGHUP) declared the name of the replay's session while it ran: the name is the configuration's.
    /// The replay's session (on a virtual clock, drawing recorded numbers) gives way to the configuration's, opened
    /// live from the stack the replay left, which is made durable first; the reply says the session stays open.
    private func handOver(_ session: NavigationSession, to report: inout ReplayReport) async throws {
        try await commit(session)
        if isOpen(session) { close(session.name) }
        openConfiguredSessions?()
        report.leftOpen = true
        report.warnings.append(
            "the configuration declared session \(session.name) while it was replayed: it stays open as the "
                + "configuration's, at the stack the replay left"
        )
    }

    /// Once the daemon is stopping (``shutDown()``), takes the session the replay `replay` opened out durably, if it is
    /// still that one, and throws ``SessionsShutDown``: its sessions are closed, and a replay cut short leaves nothing
    /// behind, like any call the stop refuses.
    private func abandonIfStopping(_ name: String, replay: Int) async throws {
        guard isShutDown else { return }
        if replaysUnderWay[name] == replay { try await closeDurably(name, evenStopping: true) }
        throw SessionsShutDown()
    }

    /// Throws `SessionNotFound` once a client has closed the replay's session (and may have opened another of the
    /// name): the replay stops there, and what it would still change belongs to no session. Before, it drove the
    /// closed session to its end, and its records, of higher revisions, replaced the new session's on disk.
    private func stopIfClosed(_ session: NavigationSession, calls: Int) throws(NavigationError) {
        guard !isOpen(session) else { return }
        throw NavigationError(
            .sessionNotFound,
            "session \(session.name) was closed while it was replayed; the replay stopped after \(calls) calls",
            // The reason says the name was right: a client shows no "did you mean" for it.
            parameters: ["session": .string(session.name), "reason": "closed while it was replayed"]
        )
    }

    /// How a replay's wait for its session to settle ended.
    private enum Settling {
        /// Every screen idle; or 50 ms without a change, with the screens to wait for idle and the stack holding the
        /// recorded screens.
        case settled
        /// The 5 s ran out with a screen whose state is compared still at work.
        case workGoesOn
        /// The 5 s ran out with a screen recorded busy still at work and the stack not holding the recorded screens.
        case screensDiffer
        /// The 5 s ran out with everything else there, the work to wait for ended and the stack holding the recorded
        /// screens for 50 ms and more, but no 50 ms without a change: the screens at these places (0 the root) had
        /// changed their own state or error at least once per 50 ms of that stretch, and in its last 50 ms or more.
        case quietNeverCame(changing: [(place: Int, route: String)])
    }

    /// The most a gap between two polls of a settle counts for in its 50 ms without a change: a little more than the
    /// 2 ms a poll sleeps, so that 50 ms take 10 polls at least.
    private static let pollCredit = Duration.milliseconds(5)

    /// The own changes (state, error) a settle leaves out of its 50 ms without a change: those of the open screens of
    /// routes given up on that keep changing, each screen tracked on its own. A screen is left out once it has changed
    /// with no 50 ms still for ``steadily`` (a clock ticking every 10 ms, a progress bar), and only while it goes on
    /// changing: still for 50 ms, its own changes count again (their count re-entering the value, which jumps: the 50
    /// ms start again). A screen of such a route that writes a few items 30 ms apart, or loads and goes still, within
    /// ``steadily`` is waited for as any other; one that goes on longer is left out from then on until it is still,
    /// and the settle may end before it is.
    @MainActor
    private struct OwnChangesLeftOut {
        /// How long a screen must have kept changing, no 50 ms still, before its changes are left out: four times the
        /// 50 ms, which a burst of writes or a load's few updates does not last, and what a ticker costs each settle.
        static let steadily = Duration.milliseconds(200)

        /// One open screen of a route given up on, as the settle's polls saw it.
        private struct Watched {
            let screen: ScreenID
            var count: UInt64
            /// When the screen's current run of changes, none 50 ms or more after the one before, began.
            var changingSince: ContinuousClock.Instant
            var lastChange: ContinuousClock.Instant
        }

        let routes: Set<String>
        let quiet: Duration
        private var watched: [Watched] = []

        init(routes: Set<String>, quiet: Duration) {
            self.routes = routes
            self.quiet = quiet
        }

        /// The session's revision less the own changes of the screens of ``routes`` that keep changing at `now`. A
        /// screen first seen counts as changing since then; so does an open ticker at the settle's start.
        mutating func revision(of session: NavigationSession, at now: ContinuousClock.Instant) -> UInt64 {
            var leftOut: UInt64 = 0
            for screen in session.screens where routes.contains(screen.route.id) {
                let count = screen.ownChanges.count
                guard let index = watched.firstIndex(where: { $0.screen == screen.id }) else {
                    watched.append(Watched(screen: screen.id, count: count, changingSince: now, lastChange: now))
                    continue
                }
                if watched[index].count != count {
                    if watched[index].lastChange.duration(to: now) >= quiet { watched[index].changingSince = now }
                    (watched[index].count, watched[index].lastChange) = (count, now)
                }
                let entry = watched[index]
                if entry.lastChange.duration(to: now) < quiet,
                    entry.changingSince.duration(to: entry.lastChange) >= Self.steadily
                {
                    leftOut += count
                }
            }
            return session.revision &- leftOut
        }
    }

    /// Waits until every screen of `session` is idle, at most 5 seconds; or, once 50 ms passed without a change, until
    /// every screen whose state the comparison with `recorded` looks at is idle (with `waitingForWork`; else not
    /// longer) and the stack holds the screens `recorded` does (with `waitingForScreens`; else not longer). The
    /// changes of screens of the routes `changingRoutes` to their own state and error do not count while such a
    /// screen keeps changing (``OwnChangesLeftOut``): a screen of those routes changed all the time in an earlier
    /// settle.
    ///
    /// A screen that follows something forever is never idle, and was `busy` when the recorded stack was taken: its
    /// state is not compared, and the replay does not wait for its work to end. Any other screen's work (a catalog it
    /// loads, which may take longer than 50 ms without a change on a busy machine or over a network) is waited for:
    /// before, the replay compared such a screen while it still loaded, and said "differs" where the recorded session
    /// had let it load. So are the screens a screen recorded busy opens (or closes) as its work goes on, after a
    /// quiet stretch (an answer from a network): the session recorded had them when its next call came, and before,
    /// the replay compared the stack 50 ms into that stretch, without them. A stack that differs for good costs the
    /// 5 s once: the replay stops at the difference. A screen that changes all the time (a clock ticking every 10 ms,
    /// a progress bar) lets no 50 ms pass: when the 5 s run out that way, with the work to wait for ended and the
    /// stack there for the last 50 ms at least, the screens whose own changes alone kept the 50 ms away are named,
    /// and later settles leave out the own changes of their routes' screens, each while it keeps changing. When the
    /// 5 s ran out for work or for the stack, nothing is said of quiet: those screens had no chance to settle.
    ///
    /// It polls every 2 ms: each poll compares numbers and the stack's routes, and builds nothing (but the list of
    /// own-change counts when a ready stretch begins). The 50 ms are the sum of the gaps between polls that found no
    /// change, each counted for ``pollCredit`` at most.
    private func settle(
        _ session: NavigationSession,
        toCompareWith recorded: [RecordedScreen],
        waitingForWork: Bool,
        waitingForScreens: Bool,
        leavingOut changingRoutes: Set<String>
    ) async -> Settling {
        let clock = ContinuousClock()
        let quiet = Duration.milliseconds(50)
        let giveUp = clock.now.advanced(by: .seconds(5))
        var ownChanges = OwnChangesLeftOut(routes: changingRoutes, quiet: quiet)
        func changes(at now: ContinuousClock.Instant) -> UInt64 {
            changingRoutes.isEmpty ? session.revision : ownChanges.revision(of: session, at: now)
        }
        func workEnded() -> Bool { !waitingForWork || session.isIdle(besidesScreensBusyIn: recorded) }
        func screensCame() -> Bool { !waitingForScreens || session.holdsTheScreens(of: recorded) }
        var lastPoll = clock.now
        var lastChanges = changes(at: lastPoll)
        // How long the polls saw no change: each gap between two counts for `pollCredit` at most (below).
        var quietFor = Duration.zero
        // Since when the work to wait for has ended and the stack held the recorded screens, without a break.
        var readySince: ContinuousClock.Instant?
        // The screens' own-change counts when the ready stretch began: what decides which screens kept the 50 ms away
        // on their own.
        var countsWhenReady: [(screen: ScreenID, count: UInt64)] = []
        // The revision at the start of the last 50 ms window that ended, and of the one under way: the screens that
        // changed since the first are those that kept the last 50 ms from passing quietly.
        var windowStart = clock.now
        var (endedWindowRevision, windowRevision) = (session.revision, session.revision)
        while !session.isIdle, clock.now < giveUp {
            try? await Task.sleep(for: .milliseconds(2))
            let now = clock.now
            if windowStart.duration(to: now) >= quiet {
                (endedWindowRevision, windowRevision, windowStart) = (windowRevision, session.revision, now)
            }
            let ready = workEnded() && screensCame()
            let gap = lastPoll.duration(to: now)
            if !ready {
                readySince = nil
            } else if readySince == nil {
                readySince = now
                countsWhenReady = session.screens.map { ($0.id, $0.ownChanges.count) }
            }
            lastPoll = now
            let current = changes(at: now)
            if current != lastChanges {
                lastChanges = current
                quietFor = .zero
                continue
            }
            // A poll held up for long saw nothing of that stretch: the whole daemon may have been held up (two cores
            // shared with a build), its screens' work with it, and a screen that changes every 10 ms would seem to have
            // gone quiet. So a gap counts for a poll's worth at most, and the 50 ms take 10 polls or more that found
            // no change. Not started again by a long gap, as 53292d0 had it: a daemon held up every 50 ms or more
            // (heavy load, a screen's 60 ms of work between two awaits) then never settled, each call cost the 5 s.
            quietFor += min(gap, Self.pollCredit)
            if ready, quietFor >= quiet { return .settled }
        }
        if !workEnded() { return .workGoesOn }
        // Idle, the stack changes no more: as it is, it is what the replay compares.
        if session.isIdle { return .settled }
        if !screensCame() { return .screensDiffer }
        guard let readySince, readySince.duration(to: clock.now) >= quiet else { return .settled }
        // A screen kept the 50 ms away on its own when it changed at least once per 50 ms of the ready stretch, and
        // in its last 50 to 100 ms: not one that changes every 500 ms, nor one whose work ended just before the end.
        // Counted from its changes, not from the polls: polls held up (a loaded machine) do not make a screen seem to
        // change more; a ticker held up with them may fall short, and is not given up on (the 5 s, no warning).
        let needed = UInt64(readySince.duration(to: clock.now) / quiet)
        let changing = session.screens.enumerated().compactMap { place, screen in
            // A screen a plugin's reload rebuilt under the same ID counts its changes from 0 again: all are its own.
            let count = screen.ownChanges.count
            let before = countsWhenReady.first { $0.screen == screen.id }?.count ?? 0
            let grown = count >= before ? count - before : count
            return !changingRoutes.contains(screen.route.id) && screen.ownChanges.latest > endedWindowRevision
                && grown >= needed ? (place, screen.route.id) : nil
        }
        // Only the stack kept changing (a screen that opens and closes others all the time): no screen to leave out.
        return changing.isEmpty ? .settled : .quietNeverCame(changing: changing)
    }

    private static func pluginWarnings(
        recorded: [SessionRecording.Plugin],
        loaded: [SessionRecording.Plugin]
    ) -> [String] {
        let loadedVersions = Dictionary(loaded.map { ($0.name, $0.version) }, uniquingKeysWith: { first, _ in first })
        return recorded.compactMap { plugin in
            guard let version = loadedVersions[plugin.name] else {
                return "plugin \(plugin.name) \(plugin.version) was loaded when recording, and is not now"
            }
            guard version == plugin.version else {
                return "plugin \(plugin.name) was \(plugin.version) when recording, and is \(version) now"
            }
            return nil
        }
    }
}
