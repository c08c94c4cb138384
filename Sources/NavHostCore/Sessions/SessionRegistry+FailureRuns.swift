import Logging

// The log of a session's failed writes: one line at `error` level when a run of them begins, the others counted, and
// one line with the count when the run ends (docs/durability.md, "When the disk fails").

extension SessionRegistry {
    // MARK: Runs of failed writes

    /// Counts a take-back of `session`'s unsaved changes after a failed write, and logs it at `error` level when it is
    /// the first of a run: the run goes on until the session's next write that succeeds, or its close
    /// (``endFailureRun(of:closing:)``). Before, every take-back logged a line: on a disk that kept failing, a session
    /// the persistence held no written stack of logged about 2,400 in 3 s.
    func countTakeBack(of session: NavigationSession, because error: any Error) {
        session.takeBacksInTheFailureRun += 1
        // The end line says the last: the disk's error may change during a run (EIO, then ENOSPC).
        session.lastErrorInTheFailureRun = "\(error)"
        guard session.takeBacksInTheFailureRun == 1 else { return }
        logger.error(
            "Cannot save a session's state; its unsaved changes were taken back",
            metadata: ["navhost.session": "\(session.name)", "error": "\(error)"]
        )
    }

    /// Ends `session`'s run of failed writes, if one is under way, with one line that counts its take-backs and says
    /// the last one's error (the first line said the first's): at `notice` level once a write succeeded (the settle's
    /// too, for a closed session, or the last one before a close that leaves the settle nothing), at `warning` level
    /// when the session, closed, is given up by the settle (or by a session opened under its name), or takes a
    /// failure back once the settle keeps it no more, with its state unsaved since.
    func endFailureRun(of session: NavigationSession, closing: Bool = false) {
        let takeBacks = session.takeBacksInTheFailureRun
        guard takeBacks > 0 else { return }
        session.takeBacksInTheFailureRun = 0
        var metadata: Logger.Metadata = ["navhost.session": "\(session.name)", "navhost.takeBacks": "\(takeBacks)"]
        if let lastError = session.lastErrorInTheFailureRun { metadata["error"] = .string(lastError) }
        session.lastErrorInTheFailureRun = nil
        if closing {
            logger.warning(
                "Closed a session while its state could not be saved since a failed write",
                metadata: metadata
            )
        } else {
            logger.notice("Saved a session's state again after failed writes", metadata: metadata)
        }
    }
}
