import ArgumentParser

/// Where the daemon is and which session to act on; every subcommand that talks to the daemon takes these.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket. (default: $NAVHOST_SOCKET, else /run/navhost/io.navhost for root, else $XDG_RUNTIME_DIR/navhost/io.navhost)",
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The session to act on. (default: the daemon's default session, main)", valueName: "name")
    )
    var session: String?
}
