import ArgumentParser
import NavHostCommandLine
import NavHostKit

/// `navctl`: the operator's and script author's client for `navhostd`.
@main
struct Navctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navctl",
        abstract: "Drive navhostd: navigate, send intents, watch a session's state change, and manage plugins.",
        discussion: """
            navctl talks to navhostd over its Varlink socket (io.navhost.Navigation, io.navhost.Plugins). The \
            socket is --socket, else $NAVHOST_SOCKET, else /run/navhost/io.navhost for root and \
            $XDG_RUNTIME_DIR/navhost/io.navhost for anyone else. Commands act on the session "main" unless \
            --session names another.

            Replies are printed for people; --json prints each one as one JSON object per line, as the interface \
            declares it. Route parameters and intent arguments are key=value words: the value is JSON when it \
            parses as JSON (3, true, null, "quoted", [1,2], {"a":1}), otherwise a plain string.

            Examples:
              navctl stack
              navctl navigate products.list
              navctl send onChangedFilter text=lamp
              navctl navigate products.detail productID=p3
              navctl pop
              navctl watch --json
              navctl plugins reload Products

            Exit codes (docs/navctl.md says which error is which):
              0   success
              1   any other failure
              2   the daemon refused the request (an error reply)
              3   the intent was taken but did not complete
              4   navctl replay: the replay differs from the recording
              64  usage error: a bad subcommand, option or key=value
              69  the daemon is unreachable, or the connection was lost
              76  protocol error: a reply navctl does not understand
            """,
        version: "navctl \(NavHostKitVersion.current)",
        groupedSubcommands: [
            CommandGroup(
                name: "Looking",
                subcommands: [Stack.self, Watch.self, Sessions.self, Routes.self]
            ),
            CommandGroup(
                name: "Sessions",
                subcommands: [Session.self]
            ),
            CommandGroup(
                name: "Navigating",
                subcommands: [Navigate.self, Present.self, Pop.self, Root.self, PopTo.self, Dismiss.self, Replace.self]
            ),
            CommandGroup(name: "Intents", subcommands: [Send.self]),
            CommandGroup(name: "Plugins", subcommands: [Plugins.self]),
            CommandGroup(name: "Recording", subcommands: [Record.self, Replay.self]),
            CommandGroup(name: "Inspecting", subcommands: [Inspect.self]),
        ]
    )

    // The options every subcommand takes may also come before it (`navctl --socket PATH plugins list`): ArgumentParser
    // hands an option group a command decoded to the subcommands that declare the same group.
    @OptionGroup(title: "Global options") var connection: ConnectionOptions
    @OptionGroup(title: "Global options") var session: SessionOption
    @OptionGroup(title: "Global options") var output: OutputOptions

    /// ArgumentParser's `main`, with a word that is no command named as such first (``UnknownCommand``).
    static func main() async {
        exitOnUnknownCommand(optionsTakingValues: ["--socket", "--session", "--timeout"])
        await main(nil)
    }
}
