import ArgumentParser
import NavHostSocketPath

/// Where the daemon is.
struct DaemonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket. (default: $NAVHOST_SOCKET, else /run/navhost/io.navhost for root, else $XDG_RUNTIME_DIR/navhost/io.navhost)",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    func validate() throws {
        // As given: a relative path is connected to as it is, from the current directory.
        if socket?.isEmpty == true { throw ValidationError("--socket needs a path; an empty one names no socket") }
        if let socket, let problem = SocketPathLength.problem(with: socket) {
            throw ValidationError("--socket \(problem)")
        }
    }
}

/// ``DaemonOptions``, and how long to wait for an answer: every subcommand that makes calls and ends takes these.
struct ConnectionOptions: ParsableArguments {
    @OptionGroup var daemon: DaemonOptions

    @Option(
        name: .long,
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for the daemon to answer before giving up (exit 69); 0 waits as long as it takes. A watch waits that long for its first reply, then follows for as long as it runs. (default: 60)",
            valueName: "seconds"
        )
    )
    var timeout: Double?

    var socket: String? { daemon.socket }
    /// A day: more is a mistake, and would not fit the clock's durations for long.
    static let longestTimeout: Double = 86_400

    /// ``timeout``, or its default.
    var timeoutSeconds: Double { timeout ?? 60 }

    /// ``timeoutSeconds`` as navctl says a time limit: `60 s`, `0.5 s`.
    var timeoutDescription: String { Self.describe(seconds: timeoutSeconds) }

    /// `seconds` as navctl says a time limit: `60 s`, `0.5 s`.
    static func describe(seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    func validate() throws {
        if let timeout, !(0...Self.longestTimeout).contains(timeout) {
            throw ValidationError("--timeout takes seconds from 0 to \(Int(Self.longestTimeout))")
        }
    }
}
