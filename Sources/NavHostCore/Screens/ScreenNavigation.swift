import NavHostKit

/// The ``NavigationHandler`` a screen's ViewModel gets in its `Router`: the session, on behalf of that one screen.
///
/// A reload rebuilds a screen under its old ID, with a new ViewModel. The old ViewModel may live on in work it started
/// (a detached task, a callback from a queue) and keeps its `Router`, whose handler is this: its screen has left the
/// stack, so the session drops its navigation whatever task it comes from, instead of taking it for the new screen's.
/// The screen holds it; the `Router` holds it weakly, so once the screen is gone the `Router` has no handler.
@MainActor
final class ScreenNavigation: NavigationHandler {
    private let session: Backlink<NavigationSession>
    /// The screen whose ViewModel navigates through this; set once the screen is made (its ViewModel comes first).
    var screen: Backlink<Screen>?

    init(session: NavigationSession) {
        self.session = session.backlink
    }

    func perform(_ command: NavigationCommand, from screenID: ScreenID) -> Bool {
        guard let session = session.owner, let screen = screen?.owner, screen.id == screenID else { return false }
        return session.perform(command, from: screen)
    }
}
