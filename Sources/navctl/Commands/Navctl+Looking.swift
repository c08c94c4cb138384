import ArgumentParser
import NavHostClient

// Subcommands that only read: stack, sessions, routes. (watch and plugins have files of their own.)

// MARK: - stack

extension Navctl {
    struct Stack: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a session's stack, root first, and the top screen's state.",
            discussion: """
                The top screen is marked with =>. --json prints the Stack reply: {"snapshot":{"session":…,\
                "revision":…,"stack":[…]}}.

                Examples:
                  navctl stack
                  navctl stack --session kiosk
                  navctl stack --json | jq '.snapshot.stack[-1].state'
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                let snapshot = try await client.stack(session: session.name)
                if output.json {
                    try JSONOutput.print(["snapshot": snapshot])
                } else {
                    StackView.lines(snapshot).forEach(Console.print)
                }
            }
        }
    }
}

// MARK: - sessions

extension Navctl {
    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the open sessions.",
            discussion: """
                One session name per line. --json prints the Sessions reply: {"sessions":["main",…]}.

                Examples:
                  navctl sessions
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await Self.list(connection: connection, output: output)
        }

        /// Prints the open sessions, one per line, or the `Sessions` reply with `--json` (also `session list`).
        static func list(connection: ConnectionOptions, output: OutputOptions) async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                let sessions = try await client.sessions()
                if output.json {
                    try JSONOutput.print(["sessions": sessions])
                } else {
                    sessions.forEach(Console.print)
                }
            }
        }
    }
}

// MARK: - routes

extension Navctl {
    struct Routes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the routes the loaded features offer, with their parameters and intents.",
            discussion: """
                Each route is printed as ROUTE(PARAMETERS)  FEATURE, then its summary and its intents, indented, \
                each with its arguments as INTENT(NAME: TYPE, …): what `navctl send INTENT NAME=VALUE` takes (a \
                ?TYPE may be left out). --json prints the Routes reply: {"routes": [{"route": …, "feature": …, \
                "parameters": […], "intents": […], "summary": …, "intentArguments": {…}}, …]}.

                Examples:
                  navctl routes
                  navctl routes --json | jq -r '.routes[].route'
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                let routes = try await client.routes()
                if output.json {
                    try JSONOutput.print(["routes": routes])
                    return
                }
                for route in routes {
                    let parameters = route.parameters.isEmpty ? "" : "(\(route.parameters.joined(separator: ", ")))"
                    Console.print("\(route.route)\(parameters)  \(route.feature)")
                    if !route.summary.isEmpty { Console.print("  \(route.summary)") }
                    Console.print("  intents: \(Table.list(route.intents.map(route.signature(of:))))")
                }
            }
        }
    }
}

// MARK: - Options they have no use for

extension Navctl.Sessions: UnusedRootOptions {
    static let unusedRootOptions = ["--session": "it lists every open session"]
}

extension Navctl.Routes: UnusedRootOptions {
    static let unusedRootOptions = ["--session": "the routes are the daemon's, the same in every session"]
}
