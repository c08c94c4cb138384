import ArgumentParser
import Glibc
import NavHostClient
import Synchronization

/// Prints one stream's updates as they arrive.
protocol UpdateRenderer: Sendable {
    /// What the stream yields.
    associatedtype Update: Sendable

    /// Prints `update`.
    mutating func render(_ update: Update) throws(NavHostClientError)
}

/// Runs `navctl watch` and `navctl plugins watch`: follows a stream until Ctrl-C (SIGINT), SIGTERM or the daemon
/// ends it, each of which is a success.
enum Following {
    /// Starts a stream with `open`, prints each update with `renderer`, and returns once it ends.
    ///
    /// An ending by the daemon is said on standard error, a final reply (the session closed) apart from
    /// `ServiceShuttingDown` (the daemon stops). The stream's first reply (a watch's snapshot, the plugins' list) is
    /// waited for as long as `--timeout` allows, as a call's reply is: a daemon that takes the call and never answers
    /// (stopped, wedged) is given up on with exit code 69; once it has answered, the stream is followed for as long as
    /// it runs.
    ///
    /// - Parameters:
    ///   - connection: Where the daemon is.
    ///   - renderer: Prints the updates.
    ///   - open: Starts the stream with a client that is closed right after: the stream has a connection of its own.
    /// - Throws: The exit code for any other failure, reported on standard error.
    static func run<Renderer: UpdateRenderer>(
        _ connection: ConnectionOptions,
        rendering renderer: Renderer,
        open: (NavHostClient) async throws(NavHostClientError) -> NavHostStream<Renderer.Update>
    ) async throws {
        let signals = SignalStream(SIGINT, SIGTERM)
        let ending: Ending
        let deadline = Deadline(seconds: connection.timeoutSeconds)
        let answered = FirstReply()
        do {
            let stream = try await connection.withClient(open)
            let watchdog = deadline.watch {
                // Given up on only while no reply has come: a reply taken meanwhile is printed, and the watch goes on.
                guard answered.giveUp() else { return }
                await stream.close()
            }
            defer { watchdog?.cancel() }
            let interruptions = signals.stream
            ending = try await withThrowingTaskGroup(of: Ending.self) { group in
                group.addTask {
                    var renderer = renderer
                    for try await update in stream {
                        // A reply the stream still held when navctl gave up on it is not printed.
                        guard answered.answer() else { break }
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
            ending = .daemonStopping
        } catch let error as NavHostClientError
            where answered.hasGivenUp && (error.code == .connectionClosed || error.code == .daemonUnreachable)
        {
            // The stream navctl closed, not an error the daemon answered with.
            throw ConnectionOptions.report(connection.noAnswer(within: deadline))
        } catch let error as NavHostClientError {
            // A misspelt session comes back on the stream's own connection: the hint asks on one of its own.
            let hint = await SpellingHint.line(after: error, connectingTo: connection.socketPath)
            throw ConnectionOptions.report(error, hint: hint)
        }
        if ending == .endedByDaemon, answered.hasGivenUp {
            throw ConnectionOptions.report(connection.noAnswer(within: deadline))
        }
        switch ending {
        case .endedByDaemon: Console.printError("navctl: the daemon ended the watch")
        case .daemonStopping: Console.printError("navctl: the daemon is stopping; it ended the watch")
        case .interrupted: break
        }
        withExtendedLifetime(signals) {}
    }

    /// Whether a stream's first reply came, or navctl gave up waiting for it: one or the other, whichever is first.
    private final class FirstReply: Sendable {
        private enum State { case waiting, answered, gaveUp }
        private let state = Mutex(State.waiting)

        /// Whether navctl gave up waiting (and closed the stream).
        var hasGivenUp: Bool { state.withLock { $0 == .gaveUp } }

        /// Notes a reply: `false` when navctl gave up before it, and the reply is to be dropped.
        func answer() -> Bool {
            state.withLock { state in
                if state == .waiting { state = .answered }
                return state == .answered
            }
        }

        /// Gives up waiting: `false` when a reply came first, and the stream is to be followed.
        func giveUp() -> Bool {
            state.withLock { state in
                if state == .waiting { state = .gaveUp }
                return state == .gaveUp
            }
        }
    }

    private enum Ending: Sendable {
        /// Ctrl-C or SIGTERM.
        case interrupted
        /// A final reply: a session watch's session was closed.
        case endedByDaemon
        /// `ServiceShuttingDown`: the daemon stops (a client reconnects once it is back).
        case daemonStopping
    }
}
