public import NavHostKit

/// The screens of one session that a reload could not bring back as they were: the new build could not read the
/// restorable state of some (they start fresh, still on the stack), or cannot show others (they are gone, with the
/// screens above them).
///
/// ``SessionRegistry/rebuildScreens(showing:)`` reports one per session that lost screens; the plugin control keeps
/// them in the new build's status and says them to plugin watchers, so that whoever installed the build learns what
/// it cost.
public struct LostScreens: Sendable, Hashable {
    /// The session's name.
    public var session: String
    /// The screens still on the stack that started fresh: their saved state did not decode with the new build.
    public var startedFresh: [ScreenID]
    /// The screens taken off the stack, bottom first: the new build cannot show the first; the others, above it, went
    /// with it, whatever plugin showed them.
    public var removed: [ScreenID]
    /// Where the session's record from before the reload is kept (``SessionRegistry/keepAside(_:losing:at:)``), or
    /// `nil` when nothing was kept (no persistence, or the write failed).
    public var keptAside: String?

    /// Creates a report.
    package init(session: String, startedFresh: [ScreenID], removed: [ScreenID], keptAside: String?) {
        self.session = session
        self.startedFresh = startedFresh
        self.removed = removed
        self.keptAside = keptAside
    }
}
