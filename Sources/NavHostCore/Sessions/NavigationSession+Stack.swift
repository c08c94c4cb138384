public import NavHostKit
import NavHostWire

// The stack's operations: push, present, pop, popTo, popToRoot, dismiss, replace, and the rebuilds and removals a
// plugin's reload or unload makes. Each is one change, or a refusal that changes nothing.

// MARK: - Moving

extension NavigationSession {
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
            var parameters: JSONObject = ["route": .string(request.id)]
            // Named when the call gave some: the route may well be on the stack, with other parameters.
            if !request.parameters.isEmpty { parameters["parameters"] = .object(request.parameters) }
            throw NavigationError(.routeNotOnStack, "no screen on the stack shows \(request)", parameters: parameters)
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
        lostOnRebuild = []
        guard screens.contains(where: { routes.contains($0.route.id) }) else { return nil }
        var rebuilt: [Screen] = []
        for (index, old) in screens.enumerated() {
            guard routes.contains(old.route.id) else {
                rebuilt.append(old)
                continue
            }
            guard let fresh = rebuild(old) else {
                lostOnRebuild += screens[index...].map(\.id)
                break
            }
            rebuilt.append(fresh)
        }
        if rebuilt.isEmpty {
            guard let root = try? makeScreen(for: configuredRoot, presentation: .push) else {
                logger.error("Cannot rebuild the session's root after a reload; the old screens stay")
                lostOnRebuild = []
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
}

// MARK: - Changing the stack

extension NavigationSession {
    func push(_ request: RouteRequest, presentation: Presentation) throws(NavigationError) -> Change {
        guard screens.count < options.maxStackDepth else { throw .stackTooDeep(options.maxStackDepth) }
        let screen = try makeScreen(for: request, presentation: presentation)
        // Before it appears: its `onAppear` may navigate at once, and the screen on top is then another.
        screen.openedBy = navigatingScreen
        screens.append(screen)
        let change = record(.pushed(screen.snapshot))
        screen.appear()
        return change
    }

    /// A new screen in place of `old`, from the catalog as it is now, holding `old`'s restorable state when the new
    /// ViewModel takes it; `nil` when the catalog cannot build the route any more.
    func rebuild(_ old: Screen) -> Screen? {
        do throws(NavigationError) {
            let (fresh, refusal) = try makeScreen(
                for: old.route,
                presentation: old.presentation,
                id: old.id,
                restoring: old.restorableState
            )
            fresh.openedBy = old.openedBy
            if let refusal {
                lostOnRebuild.append(old.id)
                // The state the users' acknowledged changes made is gone from now on: as loud as at a restart.
                logger.warning(
                    "A rebuilt screen refused its old state; it starts fresh",
                    metadata: [
                        "navhost.screen": "\(old.id)", "navhost.route": "\(old.route.id)", "error": "\(refusal)",
                    ]
                )
            }
            return fresh
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
    func swapStack(for stack: [Screen]) -> Change {
        let staying = Set(stack.map(ObjectIdentifier.init))
        let leaving = screens.filter { !staying.contains(ObjectIdentifier($0)) }
        let alreadyThere = Set(screens.map(ObjectIdentifier.init))
        // A screen whose ID the new stack holds is rebuilt there (a reload): its intents in flight go to the new one.
        let stayingIDs = Set(stack.map(\.id))
        for screen in leaving.reversed() { screen.close(rebuilt: stayingIDs.contains(screen.id)) }
        screens = stack
        let change = record(.replaced(stack.map(\.snapshot)))
        for screen in stack where !alreadyThere.contains(ObjectIdentifier(screen)) { screen.appear() }
        return change
    }

    /// Removes `screens[index...]`, topmost first, as one change.
    func removeScreens(from index: Int) -> Change {
        let removed = Array(screens[index...].reversed())
        screens.removeSubrange(index...)
        for screen in removed { screen.close(itself: screen.id == navigatingScreen) }
        return record(.popped(removed.map(\.id)))
    }
}
