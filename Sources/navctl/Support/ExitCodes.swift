import ArgumentParser
import NavHostClient

// MARK: - navctl's exit codes

/// What navctl's exit status means; docs/navctl.md has the same table. Scripts may rely on these.
///
/// | code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | any other failure |
/// | 2 | the daemon refused the request: an error reply (not found, invalid parameters, cannot pop root, …) |
/// | 3 | the intent was taken but did not complete: `IntentFailed`, `IntentTimedOut`, `ScreenClosed` |
/// | 4 | `navctl replay`: the replay differs from the recording |
/// | 64 | usage: unknown subcommand or option, missing argument, malformed `key=value`, a `--socket` too long (ArgumentParser's) |
/// | 69 | the daemon is unreachable: no socket, connection refused, permission denied, lost mid-call, or no answer in time |
/// | 76 | protocol error: the daemon's reply does not match the interface navctl was built for |
extension ExitCode {
    /// 2: the daemon answered with an error reply.
    static let requestRefused = ExitCode(2)
    /// 3: the intent was taken but did not complete.
    static let intentFailed = ExitCode(3)
    /// 4: a replay differs from its recording.
    static let replayDiffers = ExitCode(4)
    /// 69 (`EX_UNAVAILABLE`): the daemon could not be reached, or the connection was lost before the reply.
    static let daemonUnreachable = ExitCode(69)
    /// 76 (`EX_PROTOCOL`): the daemon and navctl do not speak the same interface.
    static let protocolError = ExitCode(76)

    /// The exit code for a failed call.
    init(for error: NavHostClientError) {
        switch error.code {
        case .daemonUnreachable, .connectionClosed:
            self = .daemonUnreachable
        case .protocolViolation, .interfaceNotFound, .methodNotFound, .methodNotImplemented, .expectedMore:
            self = .protocolError
        case .intentFailed, .intentTimedOut, .screenClosed:
            self = .intentFailed
        default:
            self = .requestRefused
        }
    }
}
