import ArgumentParser
import Glibc
import NavHostClient

// MARK: - watch

extension Navctl {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a session live: the top screen and its state at every revision.",
            discussion: """
                On a terminal the view is redrawn at every revision; otherwise (or with --plain) each revision \
                appends a line saying what changed, then the top screen and its state. --json prints every update \
                as one line, as the Watch replies carry them: {"snapshot":{…}} first, then {"event":{…}} per \
                revision, or {"snapshot":{…},"coalesced":true} when navctl fell behind.

                The watch runs until Ctrl-C (SIGINT) or SIGTERM, or until the daemon ends it (its session closes, \
                or it shuts down); each of these exits with code 0. A lost connection exits with 69.

                Examples:
                  navctl watch
                  navctl watch --session kiosk
                  navctl watch --json | jq -c 'select(.event) | .event.kind'
                  navctl watch --json --resume-from 41
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        @Flag(help: "Append lines even when standard output is a terminal, instead of redrawing.")
        var plain = false

        @Option(
            name: .customLong("resume-from"),
            help: ArgumentHelp(
                "The last revision already seen: start with the events after it, if the daemon still holds them.",
                valueName: "revision"
            )
        )
        var resumeFrom: UInt64?

        func run() async throws {
            let signals = SignalStream(SIGINT, SIGTERM)
            let mode: WatchRenderer.Mode =
                output.json ? .json : (Console.outputIsTerminal && !plain ? .redraw : .lines)
            let session = connection.session
            let resumeFrom = self.resumeFrom
            let socketPath = connection.socketPath
            let ending: Ending
            do {
                let watch = try await Self.start(socketPath: socketPath, session: session, resumeFrom: resumeFrom)
                let interruptions = signals.stream
                ending = try await withThrowingTaskGroup(of: Ending.self) { group in
                    group.addTask {
                        var renderer = WatchRenderer(mode: mode, session: session)
                        for try await update in watch {
                            try renderer.render(update)
                        }
                        return .endedByDaemon
                    }
                    group.addTask {
                        for await _ in interruptions { return .interrupted }
                        return .interrupted
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? .interrupted
                }
            } catch let error as NavHostClientError where error.code == .serviceShuttingDown {
                ending = .endedByDaemon
            } catch let error as NavHostClientError {
                throw ConnectionOptions.report(error)
            }
            if ending == .endedByDaemon {
                Console.printError("navctl: the daemon ended the watch")
            }
            withExtendedLifetime(signals) {}
        }

        private enum Ending: Sendable {
            case interrupted, endedByDaemon
        }

        private static func start(
            socketPath: String,
            session: String?,
            resumeFrom: UInt64?
        ) async throws(NavHostClientError) -> NavHostWatch {
            // The watch opens a connection of its own; this one only tells it where the daemon is.
            let client = try await NavHostClient.connect(socketPath: socketPath)
            do {
                let watch = try await client.watch(session: session, resumeFrom: resumeFrom)
                await client.close()
                return watch
            } catch {
                await client.close()
                throw error
            }
        }
    }
}
