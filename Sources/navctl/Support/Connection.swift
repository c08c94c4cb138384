import ArgumentParser
import NavHostClient

// MARK: - Talking to the daemon

extension ConnectionOptions {
    /// The socket path to use: `--socket`, else the default.
    var socketPath: String { socket ?? NavHostClient.defaultSocketPath() }

    /// Connects, runs `body`, closes the connection, and returns what `body` returned.
    ///
    /// A ``NavHostClientError`` is reported on standard error as one line, `Error: NAME PARAMETERS: MESSAGE`, and
    /// becomes navctl's exit code for it.
    ///
    /// - Parameter words: The command's `key=value` words: when the daemon refused one's value for not being a
    ///   string, a second line says how to quote it (``QuotingHint``).
    @discardableResult
    func withClient<Result>(
        keyValueWords words: [String] = [],
        _ body: (NavHostClient) async throws(NavHostClientError) -> Result
    ) async throws(ExitCode) -> Result {
        do throws(NavHostClientError) {
            let client = try await NavHostClient.connect(socketPath: socketPath)
            let result: Result
            do throws(NavHostClientError) {
                result = try await body(client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
            return result
        } catch {
            throw Self.report(error, keyValueWords: words)
        }
    }

    /// Reports a failed call on standard error, with a quoting hint when one of `words` was read as JSON where the
    /// daemon wanted a string, and returns the exit code for it.
    static func report(_ error: NavHostClientError, keyValueWords words: [String] = []) -> ExitCode {
        Console.printError("Error: \(error)")
        if let hint = QuotingHint.line(after: error, words: words) { Console.printError(hint) }
        return ExitCode(for: error)
    }
}
