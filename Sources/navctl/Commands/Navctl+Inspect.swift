import ArgumentParser
import Glibc
import NavHostClient
import NavHostInspector

// MARK: - inspect

extension Navctl {
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a live inspector page for the daemon on 127.0.0.1, behind a token.",
            discussion: """
                Prints the page's address, with a fresh random token, and serves until Ctrl-C (SIGINT) or SIGTERM \
                (exit code 0). Open the address in a browser on this machine: the page shows the sessions, each \
                stack, the top screen's state as a tree, the revision timeline with the diff (JSON merge patch) of \
                any revision, and the plugins with their status, all updated live; a form sends one of the top \
                screen's declared intents, and a button pops it.

                The server listens on 127.0.0.1 only. Every request and the websocket must show the token, in the \
                address (?token=…) or in the cookie the page sets after the first good one; without it the answer \
                is 401, with a wrong one or from a page of another origin 403. The page's actions are calls navctl \
                makes on the daemon's socket as the user who started it, so the daemon's access control applies to \
                them as to any other navctl command. --session chooses the session the page shows first; one \
                that is not open yet is shown once it opens, and the page says so until then.

                Examples:
                  navctl inspect
                  navctl inspect --port 8123
                  navctl inspect --socket /run/navhost/io.navhost
                """
        )

        @OptionGroup var connection: DaemonOptions
        @OptionGroup var session: SessionOption

        @Option(help: ArgumentHelp("The TCP port on 127.0.0.1; 0 picks a free one.", valueName: "port"))
        var port: Int = 0

        @Option(
            name: .customLong("timeline"),
            help: ArgumentHelp("How many revisions the timeline keeps per session.", valueName: "count")
        )
        var timelineCapacity: Int = 200

        func validate() throws {
            try Self.refuseUnusedRootOptions()
            guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
            guard timelineCapacity > 0 else { throw ValidationError("--timeline must be at least 1") }
        }

        func run() async throws {
            let server = InspectorServer(
                socketPath: connection.socketPath,
                port: port,
                timelineCapacity: timelineCapacity
            )
            let session = self.session.name
            let signals = SignalStream(SIGINT, SIGTERM)
            let interruptions = signals.stream
            do {
                try await server.run {
                    for await _ in interruptions { return }
                } onListening: { address in
                    Console.print("navctl inspect: the inspector for \(server.socketPath) is at")
                    Console.print("    \(Self.pageAddress(address, session: session))")
                    Console.print("Open it in a browser on this machine; Ctrl-C stops it.")
                }
            } catch let error as NavHostClientError {
                throw ConnectionOptions.report(error)
            } catch let error as InspectorServer.PortInUse {
                Console.printError(
                    "Error: port \(error.port) on \(InspectorServer.host) is in use: give another with --port, or "
                        + "leave --port out to let the system pick a free one"
                )
                throw ExitCode.failure
            }
            withExtendedLifetime(signals) {}
        }

        /// The page's address; `--session` goes in its fragment, where the page reads which session to show.
        static func pageAddress(_ address: InspectorServer.Address, session: String?) -> String {
            guard let session else { return address.url }
            return address.url + "#session=" + session
        }
    }
}

// MARK: - Options it has no use for

extension Navctl.Inspect: UnusedRootOptions {
    static let unusedRootOptions = [
        "--json": "it serves a page and prints its address, not a reply",
        "--timeout": "it follows the daemon for as long as it runs, and waits for it when it is gone",
    ]
}
