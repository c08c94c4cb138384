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
    @discardableResult
    func withClient<Result>(
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
            throw Self.report(error)
        }
    }

    /// Reports a failed call on standard error and returns the exit code for it.
    static func report(_ error: NavHostClientError) -> ExitCode {
        Console.printError("Error: \(error)")
        return ExitCode(for: error)
    }
}
