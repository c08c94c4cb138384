import ArgumentParser
import NavHostClient
import NavHostCommandLine

// The session group: open, close, list. A session opened here exists until it is closed, across restarts.

// MARK: - session

extension Navctl {
    struct Session: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open, close and list sessions while the daemon runs.",
            discussion: """
                A session opened here is durable: navhostd opens it again after a restart, crash or not, with its \
                stack, until it is closed. Sessions the daemon's configuration declares are opened by the daemon \
                and cannot be closed here (SessionConfigured, exit code 2). open and close need a control user; \
                anyone who can reach the socket may list.

                Examples:
                  navctl session open passenger products.list
                  navctl session open kiosk-left profile.user userID=u2 --max-stack-depth 8
                  navctl session list
                  navctl session close passenger
                """,
            subcommands: [Open.self, Close.self, List.self],
            defaultSubcommand: List.self
        )
    }
}

// MARK: - session open

extension Navctl.Session {
    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a session rooted at a route.",
            discussion: """
                Prints the new session's stack, as navctl stack does. --json prints the OpenSession reply: \
                {"snapshot":{…}}. A name is 1 to 64 letters, digits, -, _ and ., not starting with a dot.

                \(KeyValueArguments.rule)

                Examples:
                  navctl session open passenger products.list
                  navctl session open kiosk-left profile.user userID=u2 --intent-timeout 5s
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: ArgumentHelp("The new session's name, like passenger.", valueName: "name"))
        var name: String

        @Argument(
            help: ArgumentHelp("The root route's ID, like products.list.", valueName: "route"),
            completion: NameCompletion.routes
        )
        var route: String

        @Argument(help: ArgumentHelp("The root route's parameters.", valueName: "key=value"))
        var parameters: [String] = []

        @Option(help: "The most screens its stack may hold. (default: the daemon's --max-stack-depth)")
        var maxStackDepth: Int?

        @Option(
            help: ArgumentHelp(
                "How long an intent may take, like 10s, 500ms or 2m (a plain number is seconds), from 1ms to a day. (default: the daemon's --intent-timeout)",
                valueName: "time"
            ),
            transform: Self.intentTimeLimit
        )
        var intentTimeout: Duration?

        /// The most screens and the longest intent time limit a session opened over the wire may have.
        static let deepestStack = 1 << 20
        static let longestIntentTimeout: Duration = .seconds(86_400)

        /// `--intent-timeout`: a time as navhostd reads one (``TimeLimit``), within what OpenSession takes. `off`
        /// is refused: OpenSession has no value for "no limit".
        static func intentTimeLimit(_ argument: String) throws -> Duration {
            // ArgumentParser names the option and the value before the reason.
            let range =
                "expected a time from 1ms to a day (86400s or 1440m), like 10s, 500ms or 2m; a plain number is seconds"
            guard let limit = TimeLimit(argument: argument) else { throw ValidationError(range) }
            guard let duration = limit.duration else {
                throw ValidationError(
                    "a session opened over the wire cannot be without a time limit; leave --intent-timeout out for "
                        + "the daemon's own"
                )
            }
            guard duration <= longestIntentTimeout else { throw ValidationError(range) }
            return duration
        }

        func validate() throws {
            try Self.refuseUnusedRootOptions()
            _ = try KeyValueArguments.validated(parameters)
            // The ranges OpenSession takes (SessionOptions in io.navhost.Navigation): a value outside would be sent
            // and refused as InvalidParameter (intentTimeLimit checks --intent-timeout's).
            if let maxStackDepth, !(1...Self.deepestStack).contains(maxStackDepth) {
                throw ValidationError("--max-stack-depth takes 1 to \(Self.deepestStack)")
            }
        }

        func run() async throws {
            let parameters = try KeyValueArguments.validated(self.parameters)
            try await connection.withClient { client throws(NavHostClientError) in
                let snapshot = try await client.openSession(
                    named: name,
                    root: route,
                    parameters: parameters,
                    maxStackDepth: maxStackDepth,
                    intentTimeLimit: intentTimeout
                )
                if output.json {
                    try JSONOutput.print(["snapshot": snapshot])
                } else {
                    StackView.lines(snapshot).forEach(Console.print)
                }
            }
        }
    }
}

// MARK: - session close

extension Navctl.Session {
    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close a session opened with session open.",
            discussion: """
                Its screens disappear and its watchers' calls end; a restart does not bring it back. Prints \
                "closed NAME". --json prints the CloseSession reply: {}.

                Examples:
                  navctl session close passenger
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: ArgumentHelp("The session's name.", valueName: "name"), completion: NameCompletion.sessions)
        var name: String

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                try await client.closeSession(named: name)
                if output.json { return try JSONOutput.print([String: String]()) }
                Console.print("closed \(name)")
            }
        }
    }
}

// MARK: - session list

extension Navctl.Session {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the open sessions (as navctl sessions).",
            discussion: """
                One session name per line. --json prints the Sessions reply: {"sessions":["main",…]}.

                Examples:
                  navctl session list
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await Navctl.Sessions.list(connection: connection, output: output)
        }
    }
}

// MARK: - Options they have no use for

extension Navctl.Session.Open: UnusedRootOptions {
    static let spokenName = "session open"
    static let unusedRootOptions = [
        "--session":
            "the session it opens is its first argument; give --session to the commands that act on it after"
    ]
}

extension Navctl.Session.Close: UnusedRootOptions {
    static let spokenName = "session close"
    static let unusedRootOptions = ["--session": "the session it closes is its argument"]
}

extension Navctl.Session.List: UnusedRootOptions {
    static let spokenName = "session list"
    static let unusedRootOptions = ["--session": "it lists every open session"]
}
