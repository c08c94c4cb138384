import Glibc
import NavHostKit
import NavHostStorage

// Keeping aside the record of a session about to lose screens, or their state, so that what clients were answered is
// still on disk.

extension SessionRegistry {
    /// Rebuilds, in every session, the screens showing one of `routes`, after their plugin was replaced
    /// (``NavigationSession/rebuildScreens(showing:)``). A session that loses screens in it — the new build cannot
    /// show them, or cannot read their state — has its record from before kept aside (``keepAside(_:losing:at:)``).
    ///
    /// - Returns: What each session that lost screens lost, in the order of ``all``.
    @discardableResult
    public func rebuildScreens(showing routes: Set<String>) -> [LostScreens] {
        var losses: [LostScreens] = []
        for session in all where session.routeIDs.contains(where: routes.contains) {
            let before = session.record
            session.rebuildScreens(showing: routes)
            let lost = session.lostOnRebuild
            guard !lost.isEmpty else { continue }
            let onStack = Set(session.screens.map(\.id))
            losses.append(
                LostScreens(
                    session: session.name,
                    startedFresh: lost.filter(onStack.contains),
                    removed: lost.filter { !onStack.contains($0) },
                    keptAside: keepAside(before, losing: lost, at: "a reload")
                )
            )
        }
        return losses
    }

    /// Writes `record`, the session's record before it lost `screens` at `moment` (a restart, a reload), beside its
    /// file as `<name>.json.lost-<milliseconds since 1970>`, and says so in a warning naming the file. Moved to
    /// `<name>.json` while the daemon is stopped, with the plugin that serves those screens back, it brings them back.
    ///
    /// Nothing is kept without persistence; a write that fails is logged, and the session goes on.
    ///
    /// - Returns: The file written, or `nil` when nothing was kept.
    @discardableResult
    func keepAside(_ record: SessionRecord, losing screens: [ScreenID], at moment: String) -> String? {
        guard let persistence else { return nil }
        let stamp = timespec.wallClockNow().milliseconds
        let lost = screens.map(\.rawValue).joined(separator: " ")
        do {
            let path = try persistence.file(for: record.session).keepAside(record, suffix: "lost-\(stamp)")
            logger.warning(
                "Screens of a session could not come back as they were; kept its record from before aside",
                metadata: [
                    "navhost.session": "\(record.session)", "navhost.screens": "\(lost)", "navhost.after": "\(moment)",
                    "navhost.file": "\(path)",
                ]
            )
            return path
        } catch {
            logger.error(
                "Cannot keep aside the record of a session that lost screens",
                metadata: ["navhost.session": "\(record.session)", "navhost.screens": "\(lost)", "error": "\(error)"]
            )
            return nil
        }
    }
}
