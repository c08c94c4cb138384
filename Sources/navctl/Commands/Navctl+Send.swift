import ArgumentParser
import NavHostClient
import NavHostKit

// MARK: - send

extension Navctl {
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an intent to a screen and wait until its ViewModel has handled it.",
            discussion: """
                The intent goes to the top screen unless --screen names another. Prints the screen's state once \
                the intent was handled (or that the intent closed the screen), then the stack's new top when the \
                top changed meanwhile (an intent that navigates). `navctl routes` lists each route's intents. \
                --json prints only the Send reply: {"revision":…,"screen":{…}}, without "screen" when the intent \
                closed it.

                Exit code 2 when the daemon refuses the intent (IntentNotFound, InvalidIntentArguments, \
                ScreenNotFound), 3 when the ViewModel took it but failed (IntentFailed, IntentTimedOut; \
                IntentFailed also when the daemon refused the navigation it asked for, like StackTooDeep) or the \
                screen left the stack first (ScreenClosed).

                \(KeyValueArguments.rule)

                Examples:
                  navctl send onChangedFilter text=lamp
                  navctl send onTappedProduct productID=p3
                  navctl send onTappedRetry --screen s2
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        @Option(
            help: ArgumentHelp("The screen's ID, like s2. (default: the top screen)", valueName: "id"),
            completion: NameCompletion.screens
        )
        var screen: String?

        @Argument(
            help: ArgumentHelp("The intent's name, like onChangedFilter.", valueName: "intent"),
            completion: NameCompletion.intents
        )
        var intent: String

        @Argument(help: ArgumentHelp("The intent's arguments.", valueName: "key=value"))
        var arguments: [String] = []

        func validate() throws {
            _ = try KeyValueArguments.validated(arguments)
        }

        func run() async throws {
            let arguments = try KeyValueArguments.validated(self.arguments)
            try await connection.withClient(keyValueWords: self.arguments) { client throws(NavHostClientError) in
                // For people, the top screen before and after: an intent that navigates says where it went. Only
                // a remark: the Send's own answer or error is what counts, so a Stack that fails is passed over.
                let before = output.json ? nil : try? await client.stack(session: session.name)
                let sent = try await client.send(
                    intent,
                    arguments: arguments,
                    to: screen.map(ScreenID.init),
                    session: session.name
                )
                if output.json {
                    try JSONOutput.print(sent)
                    return
                }
                if let screen = sent.screen {
                    StackView.lines(screen: screen, prefix: "revision \(sent.revision): \(intent) handled by ")
                        .forEach(Console.print)
                } else {
                    Console.print("revision \(sent.revision): \(intent) closed the screen")
                }
                if let before, let after = try? await client.stack(session: session.name),
                    let top = after.stack.last, top.id != before.stack.last?.id
                {
                    Console.print("the stack's top is now \(StackView.describe(top)) (navctl stack shows it)")
                }
            }
        }
    }
}
