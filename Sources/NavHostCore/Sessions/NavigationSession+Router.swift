public import NavHostKit

// What a ViewModel's `Router` does: each screen's `ScreenNavigation` hands its commands here.

extension NavigationSession {
    /// Carries out `command` for the screen on the stack called `screenID`: a `Router` made on the session itself
    /// (a test's, a tool's). A ViewModel's `Router` goes through its screen's ``ScreenNavigation``, which names the
    /// screen object, not only its ID.
    public func perform(_ command: NavigationCommand, from screenID: ScreenID) -> Bool {
        guard let screen = screens.last(where: { $0.id == screenID }) else {
            logger.debug(
                "Dropped navigation from a screen that left the stack",
                metadata: ["navhost.screen": "\(screenID)", "navhost.command": "\(command)"]
            )
            return false
        }
        return perform(command, from: screen)
    }

    /// Carries out `command` for `screen`, if it is still on the stack.
    func perform(_ command: NavigationCommand, from screen: Screen) -> Bool {
        let screenID = screen.id
        // A closed session keeps its screens, all closed, but navigates no more: their work is cancelled, not stopped,
        // and work outside a screen task (a detached task, a queue's callback) is not known as a closed screen's. A
        // command carried out would build screens in a session nothing closes again, and change a stack its last
        // writes write.
        guard !isClosed else {
            logger.debug(
                "Dropped navigation in a closed session",
                metadata: ["navhost.screen": "\(screenID)", "navhost.command": "\(command)"]
            )
            return false
        }
        // A screen a reload rebuilt keeps its ID, with another `Screen`: the old ViewModel's work, cancelled but going
        // on, asks for this one, which has left the stack. Its navigation would come on top of the one the intent,
        // delivered again to the new ViewModel, makes there. The screen task tells the same for work of the old
        // screen that navigates through another screen's `Router` (a callback its coordinator wired).
        let task = ScreenTask.current
        guard let position = screens.lastIndex(where: { $0 === screen }),
            task?.isWorkOfClosedScreen(screenID) != true
        else {
            logger.debug(
                "Dropped navigation from a screen that left the stack",
                metadata: ["navhost.screen": "\(screenID)", "navhost.command": "\(command)"]
            )
            return false
        }
        // An intent whose caller was answered `IntentTimedOut` changes the stack no more: the reply said it did not
        // finish, and a push 50 ms later would be kept (and made durable) behind the client's back.
        if task?.isAbandoned == true {
            logger.warning(
                "Dropped navigation from an intent that ran out of time",
                metadata: ["navhost.screen": "\(screenID)", "navhost.command": "\(command)"]
            )
            return false
        }
        // Restored afterwards: a screen this command pushes may navigate from its `onAppear` before the command ends.
        let outerNavigatingScreen = navigatingScreen
        navigatingScreen = screenID
        defer { navigatingScreen = outerNavigatingScreen }
        do throws(NavigationError) {
            // A pop or a dismiss acts on the top: from a screen with others above it (a client may send an intent to
            // any screen on the stack), it may close only what its ViewModel opened, not a screen a client pushed.
            try checkClosesOnlyItsOwn(command, from: position)
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
            // The intent that asked for it is answered with the refusal, not as done.
            if task?.refusedNavigation == nil { task?.refusedNavigation = error }
            return false
        }
    }
}

// MARK: - Private Functions

extension NavigationSession {
    /// Throws `ScreenNotOnTop` when `command`, from the screen at `position`, would close a screen above it that it
    /// did not open (at any remove): one a client pushed there. The screens at and below it that a dismiss closes are
    /// the modal it is part of.
    private func checkClosesOnlyItsOwn(_ command: NavigationCommand, from position: Int) throws(NavigationError) {
        let closing: Range<Int>
        switch command {
        case .pop:
            closing = (screens.count - 1)..<screens.count
        case .dismiss:
            guard let modal = screens.lastIndex(where: { $0.presentation == .modal }) else { return }
            closing = modal..<screens.count
        default:
            return
        }
        let caller = screens[position].id
        for index in closing where index > position && !opened(screens[index], from: caller) {
            throw .screenNotOnTop(caller.rawValue)
        }
    }

    /// Whether `screen` is the screen `id`, or was opened by it through its Router, at any remove. The walk goes down
    /// the stack at most once per screen: a chain of openers cannot loop.
    private func opened(_ screen: Screen, from id: ScreenID) -> Bool {
        var current: Screen? = screen
        for _ in 0...screens.count {
            guard let next = current else { return false }
            if next.id == id { return true }
            current = next.openedBy.flatMap { opener in screens.last { $0.id == opener } }
        }
        return false
    }
}
