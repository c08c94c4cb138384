public import NavHostKit

// The session as every screen's `NavigationHandler`: what a ViewModel's `Router` does.

extension NavigationSession {
    public func perform(_ command: NavigationCommand, from screenID: ScreenID) -> Bool {
        guard screens.contains(where: { $0.id == screenID }) else {
            logger.debug(
                "Dropped navigation from a screen that left the stack",
                metadata: ["navhost.screen": "\(screenID)", "navhost.command": "\(command)"]
            )
            return false
        }
        // An intent whose caller was answered `IntentTimedOut` changes the stack no more: the reply said it did not
        // finish, and a push 50 ms later would be kept (and made durable) behind the client's back.
        if ScreenTask.current?.isAbandoned == true {
            logger.warning(
                "Dropped navigation from an intent that ran out of time",
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
