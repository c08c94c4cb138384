import ArgumentParser
import NavHostClient

// MARK: - Talking to the daemon

extension ConnectionOptions {
    /// The socket path to use: `--socket`, else the default.
    var socketPath: String { socket ?? NavHostClient.defaultSocketPath() }

    /// Connects, runs `body`, and closes the connection.
    ///
    /// A ``NavHostClientError`` is reported on standard error as one line, `Error: NAME PARAMETERS: MESSAGE`, and
    /// becomes navctl's exit code for it.
    func withClient(_ body: (NavHostClient) async throws(NavHostClientError) -> Void) async throws(ExitCode) {
        do throws(NavHostClientError) {
            let client = try await NavHostClient.connect(socketPath: socketPath)
            do throws(NavHostClientError) {
                try await body(client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
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
