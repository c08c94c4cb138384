import ArgumentParser

/// Which session to act on: every command that acts on one session takes it.
///
/// The commands that act on none (`plugins`, `routes`, `sessions`), or that name their session otherwise (`session
/// open NAME`, `replay --as NAME`), do not declare it, and refuse it when it is given before them
/// (``UnusedRootOptions``).
struct SessionOption: ParsableArguments {
    @Option(
        name: .customLong("session"),
        help: ArgumentHelp("The session to act on. (default: the daemon's default session, main)", valueName: "name"),
        completion: NameCompletion.sessions
    )
    var name: String?
}
