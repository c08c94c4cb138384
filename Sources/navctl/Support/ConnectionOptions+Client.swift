import ArgumentParser
import Glibc
import NavHostClient
import NavHostSocketPath

// MARK: - Talking to the daemon

extension DaemonOptions {
    /// The socket path to use: `--socket`, else the default.
    var socketPath: String { socket ?? NavHostClient.defaultSocketPath() }
}

extension ConnectionOptions {
    /// The socket path to use: `--socket`, else the default.
    var socketPath: String { daemon.socketPath }

    /// Connects, runs `body`, closes the connection, and returns what `body` returned.
    ///
    /// A ``NavHostClientError`` is reported on standard error as one line, `Error: NAME PARAMETERS: MESSAGE`, and
    /// becomes navctl's exit code for it. A daemon that has not answered within `--timeout` seconds is given up on:
    /// the connection is closed, and the failure reported as the daemon being unreachable (exit 69).
    ///
    /// - Parameter words: The command's `key=value` words: when the daemon refused one's value for not being a
    ///   string, a second line says how to quote it (``QuotingHint``). A route, intent, plugin or session name the
    ///   daemon did not know gets a line with the one it probably meant (``SpellingHint``).
    @discardableResult
    func withClient<Result>(
        keyValueWords words: [String] = [],
        _ body: (NavHostClient) async throws(NavHostClientError) -> Result
    ) async throws(ExitCode) -> Result {
        let deadline = Deadline(seconds: timeoutSeconds)
        var spellingHint: String?
        // Whether the daemon answered before the deadline: an error reply in time is reported as such, even when the
        // deadline passes while the spelling hint asks for names.
        var answeredInTime = false
        var connected = false
        do throws(NavHostClientError) {
            let client = try await NavHostClient.connect(socketPath: socketPath)
            connected = true
            let watchdog = deadline.watch { await client.close() }
            defer { watchdog?.cancel() }
            let result: Result
            do throws(NavHostClientError) {
                result = try await body(client)
            } catch {
                answeredInTime = !deadline.hasPassed
                if answeredInTime {
                    spellingHint = await SpellingHint.line(after: error, asking: client)
                    if spellingHint == nil { spellingHint = await SignatureHint.line(after: error, asking: client) }
                }
                await client.close()
                throw error
            }
            await client.close()
            return result
        } catch {
            if deadline.hasPassed, !answeredInTime { throw Self.report(noAnswer(within: deadline)) }
            throw Self.report(error, keyValueWords: words, hint: connected ? spellingHint : unreachableHint(for: error))
        }
    }

    /// The error for a daemon that took the connection and did not answer (a call's reply, a stream's first) before
    /// `deadline`: unreachable, as for no daemon at all.
    func noAnswer(within deadline: Deadline) -> NavHostClientError {
        NavHostClientError(
            code: .daemonUnreachable,
            message: "no answer from \(socketPath) within \(deadline.description) (--timeout)"
        )
    }

    /// A line for standard error when no daemon was found at the default socket (`error` says there is no socket,
    /// or nothing listens on it): a daemon started with a socket of its own (a plugin's `make run`, `navhostd
    /// --socket`) listens elsewhere; for a user who is not root, the system daemon's socket is named when there is
    /// one (the user's default is their own daemon's, and navctl never goes to another daemon unasked). `nil` when
    /// `--socket` or `$NAVHOST_SOCKET` named the socket (the user chose it), and for any other failure (a daemon there
    /// that refuses this user is not elsewhere).
    private func unreachableHint(for error: NavHostClientError) -> String? {
        let variable = NavHostClient.socketEnvironmentVariable
        guard error.message.hasPrefix("no socket at ") || error.message.hasPrefix("nothing listens on ") else {
            return nil
        }
        guard socket == nil, getenv(variable).map({ String(cString: $0).isEmpty }) ?? true else { return nil }
        let system = NavHostClient.systemSocketPath
        if socketPath != system, SocketFile.isSocket(system) {
            return "hint: that is the default socket, your own daemon's; the system daemon's is \(system): give navctl "
                + "--socket \(system) or set \(variable)=\(system)"
        }
        return "hint: that is the default socket; for a daemon listening elsewhere, give navctl --socket PATH or set "
            + "\(variable)=PATH"
    }

    /// Reports a failed call on standard error, with a quoting hint when one of `words` was read as JSON where the
    /// daemon wanted a string, and `hint` (a ``SpellingHint``), and returns the exit code for it.
    static func report(
        _ error: NavHostClientError,
        keyValueWords words: [String] = [],
        hint: String? = nil
    ) -> ExitCode {
        Console.printError("Error: \(error)")
        if let hint = QuotingHint.line(after: error, words: words) { Console.printError(hint) }
        if let hint { Console.printError(hint) }
        return ExitCode(for: error)
    }
}
