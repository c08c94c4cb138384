import ArgumentParser
import Glibc
import NavHostClient

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
    /// An ending by the daemon (a final reply, or `ServiceShuttingDown` when it stops) is said on standard error.
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
        do {
            let stream = try await connection.withClient(open)
            let interruptions = signals.stream
            ending = try await withThrowingTaskGroup(of: Ending.self) { group in
                group.addTask {
                    var renderer = renderer
                    for try await update in stream {
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
            // A misspelt session comes back on the stream's own connection: the hint asks on one of its own.
            let hint = await SpellingHint.line(after: error, connectingTo: connection.socketPath)
            throw ConnectionOptions.report(error, hint: hint)
        }
        if ending == .endedByDaemon {
            Console.printError("navctl: the daemon ended the watch")
        }
        withExtendedLifetime(signals) {}
    }

    private enum Ending: Sendable {
        case interrupted, endedByDaemon
    }
}
