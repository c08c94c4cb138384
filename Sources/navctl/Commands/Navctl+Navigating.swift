import ArgumentParser
import NavHostClient
import NavHostJSON
import NavHostKit

// Subcommands that move the stack: navigate, present, pop, root, popto, dismiss, replace.

// MARK: - navigate

extension Navctl {
    struct Navigate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Push a screen for a route on top of the stack.",
            discussion: """
                Prints the new screen and its state right after the push. --json prints the Navigate reply: \
                {"revision":…,"screen":{…}}.

                \(KeyValueArguments.rule)

                Examples:
                  navctl navigate products.list
                  navctl navigate products.detail productID=p3
                  navctl navigate profile.user userID=u2 --session kiosk
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        @Argument(
            help: ArgumentHelp("The route's ID, like products.detail.", valueName: "route"),
            completion: NameCompletion.routes
        )
        var route: String

        @Argument(help: ArgumentHelp("The route's parameters.", valueName: "key=value"))
        var parameters: [String] = []

        func validate() throws {
            _ = try KeyValueArguments.validated(parameters)
        }

        func run() async throws {
            let parameters = try KeyValueArguments.validated(self.parameters)
            try await connection.withClient(keyValueWords: self.parameters) { client throws(NavHostClientError) in
                let pushed = try await client.navigate(to: route, parameters: parameters, session: session.name)
                try Navctl.printReply(pushed, verb: "pushed", json: output.json)
            }
        }
    }
}

// MARK: - present

extension Navctl {
    struct Present: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a screen for a route in the modal layer.",
            discussion: """
                dismiss closes it again, with every screen above it. --json prints the Present reply: \
                {"revision":…,"screen":{…}}.

                \(KeyValueArguments.rule)

                Examples:
                  navctl present settings.main
                  navctl present profile.edit userID=u1
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        @Argument(
            help: ArgumentHelp("The route's ID, like settings.main.", valueName: "route"),
            completion: NameCompletion.routes
        )
        var route: String

        @Argument(help: ArgumentHelp("The route's parameters.", valueName: "key=value"))
        var parameters: [String] = []

        func validate() throws {
            _ = try KeyValueArguments.validated(parameters)
        }

        func run() async throws {
            let parameters = try KeyValueArguments.validated(self.parameters)
            try await connection.withClient(keyValueWords: self.parameters) { client throws(NavHostClientError) in
                let presented = try await client.present(route, parameters: parameters, session: session.name)
                try Navctl.printReply(presented, verb: "presented", json: output.json)
            }
        }
    }
}

// MARK: - pop

extension Navctl {
    struct Pop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pop the top screen.",
            discussion: """
                Fails with CannotPopRoot (exit code 2) when only the root is on the stack. --json prints the Pop \
                reply: {"revision":…,"removed":["s4"]}.

                Examples:
                  navctl pop
                  navctl pop --session kiosk
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                try Navctl.printReply(try await client.pop(session: session.name), json: output.json)
            }
        }
    }
}

// MARK: - root

extension Navctl {
    struct Root: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pop every screen above the root.",
            discussion: """
                Nothing to pop is not an error. --json prints the PopToRoot reply: {"revision":…,"removed":[…]}.

                Examples:
                  navctl root
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                try Navctl.printReply(try await client.popToRoot(session: session.name), json: output.json)
            }
        }
    }
}

// MARK: - popto

extension Navctl {
    struct PopTo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "popto",
            abstract: "Pop the screens above the topmost one showing a route.",
            discussion: """
                With key=value parameters, only a screen with those route parameters matches. Fails with \
                RouteNotOnStack (exit code 2) when no screen shows the route. --json prints the PopTo reply: \
                {"revision":…,"removed":[…]}.

                \(KeyValueArguments.rule)

                Examples:
                  navctl popto products.list
                  navctl popto products.detail productID=p3
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        @Argument(
            help: ArgumentHelp("The route to pop back to.", valueName: "route"),
            completion: NameCompletion.routes
        )
        var route: String

        @Argument(help: ArgumentHelp("The route parameters a screen must have to match.", valueName: "key=value"))
        var parameters: [String] = []

        func validate() throws {
            _ = try KeyValueArguments.validated(parameters)
        }

        func run() async throws {
            let parameters = self.parameters.isEmpty ? nil : try KeyValueArguments.validated(self.parameters)
            try await connection.withClient { client throws(NavHostClientError) in
                let popped = try await client.popTo(route, parameters: parameters, session: session.name)
                try Navctl.printReply(popped, json: output.json)
            }
        }
    }
}

// MARK: - dismiss

extension Navctl {
    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close the topmost modal screen and every screen above it.",
            discussion: """
                Fails with NoModalPresented (exit code 2) when no modal screen is shown. --json prints the Dismiss \
                reply: {"revision":…,"removed":[…]}.

                Examples:
                  navctl present settings.main
                  navctl dismiss
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                try Navctl.printReply(try await client.dismiss(session: session.name), json: output.json)
            }
        }
    }
}

// MARK: - replace

extension Navctl {
    struct Replace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the whole stack, root included, in one change (a deep link).",
            discussion: """
                Each route is followed by its own key=value parameters: a word with "=" belongs to the route \
                before it. --json prints the Replace reply: {"revision":…,"stack":[…]}.

                \(KeyValueArguments.rule)

                Examples:
                  navctl replace home.main products.list
                  navctl replace home.main products.detail productID=p3
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        @Argument(
            help: ArgumentHelp(
                "The new stack, root first: route IDs, each followed by its parameters.",
                valueName: "route [key=value...]"
            ),
            completion: NameCompletion.routes
        )
        var words: [String]

        func validate() throws {
            _ = try Self.routes(from: words)
        }

        func run() async throws {
            let routes = try Self.routes(from: words)
            try await connection.withClient { client throws(NavHostClientError) in
                let replaced = try await client.replace(with: routes, session: session.name)
                if output.json {
                    try JSONOutput.print(replaced)
                    return
                }
                Console.print("revision \(replaced.revision): replaced the stack")
                StackView.lines(stack: replaced.stack).forEach(Console.print)
            }
        }

        /// Route IDs, each with the `key=value` words after it.
        static func routes(from words: [String]) throws(ValidationError) -> [RouteRequest] {
            var groups: [(route: String, parameters: [String])] = []
            for word in words {
                if word.utf8.contains(UInt8(ascii: "=")) {
                    guard !groups.isEmpty else {
                        throw ValidationError("\"\(word)\" comes before any route; start with the root route")
                    }
                    groups[groups.count - 1].parameters.append(word)
                } else {
                    groups.append((word, []))
                }
            }
            guard !groups.isEmpty else { throw ValidationError("name at least the root route") }
            var routes: [RouteRequest] = []
            for group in groups {
                routes.append(
                    RouteRequest(id: group.route, parameters: try KeyValueArguments.validated(group.parameters))
                )
            }
            return routes
        }
    }
}

// MARK: - Printing replies

extension Navctl {
    /// Prints a Navigate or Present reply: the change, then the new screen's state.
    static func printReply(_ pushed: PushResult, verb: String, json: Bool) throws(NavHostClientError) {
        if json { return try JSONOutput.print(pushed) }
        StackView.lines(screen: pushed.screen, prefix: "revision \(pushed.revision): \(verb) ").forEach(Console.print)
    }

    /// Prints a Pop, PopToRoot, PopTo or Dismiss reply: what was removed.
    static func printReply(_ popped: PopResult, json: Bool) throws(NavHostClientError) {
        if json { return try JSONOutput.print(popped) }
        Console.print("revision \(popped.revision): removed \(StackView.list(popped.removed))")
    }
}
