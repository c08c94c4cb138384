import ArgumentParser
import Glibc
import NavHostClient
import NavHostJSON
import NavHostStorage
import NavHostWire

// The flight recorder: record saves a session's last calls as a .navrec file, replay makes them again in a fresh
// session and says whether every result is the recorded one (docs/recording.md).

// MARK: - record

extension Navctl {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a session's flight recording: its last calls and the stack each left.",
            discussion: """
                Every session keeps its last calls (Navigate, Present, Pop, PopToRoot, PopTo, Dismiss, Replace, Send) \
                with their outcome, the stack each left, and the random numbers its features drew: 256 by default, \
                navhostd's --flight-recorder-calls. record saves them as JSON lines, a header first \
                (docs/recording.md), to the file -o names or to standard output. A file there is replaced whole, \
                keeping its mode and owner (a symbolic link's file, not the link); a FIFO, a device or a descriptor \
                (/dev/stdout) is written to. Needs a control user: a recording holds what clients sent.

                Examples:
                  navctl record -o bug.navrec
                  navctl record --session passenger -o passenger.navrec
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption

        @Option(
            name: .shortAndLong,
            help: ArgumentHelp("The file to write; standard output when left out.", valueName: "file")
        )
        var output: String?

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            let recording = try await connection.withClient { client throws(NavHostClientError) in
                try await client.recording(session: session.name)
            }
            let text: String
            do {
                text = try recording.jsonLines()
                guard let output else { return Console.write(text) }
                try Self.write(Array(text.utf8), to: output)
            } catch {
                // The file's own failure, not the temporary file's it is written through.
                let reason = (error as? FileAccessError)?.message ?? "\(error)"
                Console.printError("Error: cannot write \(output ?? "the recording"): \(reason)")
                throw ExitCode.failure
            }
            Console.printError(
                "recorded \(recording.calls.count) calls of session \(recording.header.session) to \(output ?? "-")"
            )
        }
    }
}

extension Navctl.Record {
    /// Writes the recording to `path`: a new file, or one replaced whole (through a temporary file beside it, so that
    /// no half recording is left), keeping the mode and owner of the file it replaces. A symbolic link, dangling or
    /// not, has the file it names written, not the link. A descriptor's name (`/dev/stdout`, `/dev/fd/3`, a link to
    /// one) is written to that descriptor, as the shell opened it; anything else there that is not a regular file (a
    /// FIFO a script reads, a device) is written through. Renamed over, a device node became a regular file, and the
    /// file a shell redirected standard output to was replaced, losing what was in it and what came after.
    fileprivate static func write(_ bytes: [UInt8], to path: String) throws(FileAccessError) {
        let target = try resolvedTarget(of: path)
        if let descriptor = descriptor(named: target) { return try FileIO.writeAll(bytes, to: descriptor, path: path) }
        var status = stat()
        guard stat(target, &status) == 0 else { return try FileIO.writeAtomically(bytes, to: target) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return try FileIO.append(bytes, to: target, followingLinks: true)
        }
        let mode = status.st_mode & 0o7777
        try FileIO.writeAtomically(bytes, to: target, mode: mode)
        // The new file was made under the umask, and by this user: given the old one's mode, and owner when root.
        chmod(target, mode)
        if geteuid() == 0 { chown(target, status.st_uid, status.st_gid) }
    }

    /// `path` with the symbolic links along its last part followed, up to a descriptor's name (`/proc/self/fd/1`,
    /// which a `stat` would take for the file it stands for) or a name that is no link: the file a link names, even
    /// one not there yet.
    private static func resolvedTarget(of path: String) throws(FileAccessError) -> String {
        var current = path
        for _ in 0..<16 {
            guard descriptor(named: current) == nil else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, Int(PATH_MAX))
            guard length > 0 else { return current }
            let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : "\(FileIO.parentDirectory(of: current))/\(link)"
        }
        throw .system("readlink", path: path, errno: ELOOP)
    }

    /// The descriptor `path` names (`/dev/stdout` 1, `/dev/stderr` 2, `/dev/fd/N` and `/proc/self/fd/N` N); `nil`
    /// for any other path.
    private static func descriptor(named path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }
}

// MARK: - replay

extension Navctl {
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a recording in a fresh session and compare every result with the recorded one.",
            discussion: """
                navhostd opens a new session (replay-N, or --as NAME) at the recording's first stack and makes its \
                calls again, one by one, with the random numbers the features drew then and a virtual clock whose \
                sleeps end at once. It compares each call's outcome and the stack it left with the recorded ones. \
                Prints "identical", or the first call that differs: its recorded revision, both outcomes, and the \
                merge patch that turns the recorded stack into the replayed one (screens keyed by their position, \
                0 the root). Exit status 0 when identical, 4 when it differs. Plugins missing or in another \
                version than recorded are warned about on standard error.

                With --to REVISION the calls past that recorded revision are not made and the session stays open: \
                look at it with navctl stack --session replay-N, go on with navigate or send, close it with navctl \
                session close. Without, it is closed at the end. --json prints the Replay reply.

                Examples:
                  navctl replay bug.navrec
                  navctl replay bug.navrec --to 12
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: ArgumentHelp("The recording, as navctl record wrote it.", valueName: "file"))
        var file: String

        // Unconditional: a negative number is a bad value, not a missing one (`--to -1`).
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Stop after the calls up to this recorded revision, and keep the session.",
                valueName: "revision"
            )
        )
        var to: UInt64?

        @Option(
            name: .customLong("as"),
            help: ArgumentHelp("The replaying session's name. (default: replay-N)", valueName: "name")
        )
        var name: String?

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            let bytes: [UInt8]
            do {
                bytes = try FileIO.readFile(file)
            } catch {
                Console.printError("Error: cannot read \(file): \(error.message)")
                throw ExitCode.failure
            }
            let recording: SessionRecording
            do {
                recording = try SessionRecording(jsonLines: String(decoding: bytes, as: UTF8.self))
            } catch {
                // What the daemon answers for a recording that does not read, found before sending it.
                Console.printError("Error: InvalidRecording: \(file): \(error)")
                throw ExitCode.requestRefused
            }
            let report = try await connection.withClient { client throws(NavHostClientError) in
                do throws(NavHostClientError) {
                    return try await client.replay(recording, session: name, to: to)
                } catch {
                    guard error.code == .connectionClosed, bytes.count > Self.smallestMessageLimit else { throw error }
                    throw Self.explainingSize(error, bytes: bytes.count)
                }
            }
            for warning in report.warnings { Console.printError("warning: \(warning)") }
            if output.json {
                try JSONOutput.print(report)
            } else {
                ReplayView.lines(report, of: recording).forEach(Console.print)
            }
            if !report.isIdentical { throw ExitCode.replayDiffers }
        }
    }
}

// MARK: - Options it has no use for

extension Navctl.Record: UnusedRootOptions {
    static let unusedRootOptions = ["--json": "the recording it writes is JSON lines already (docs/recording.md)"]
}

extension Navctl.Replay: UnusedRootOptions {
    // The session replayed is the recording's, the one replaying it a new one.
    static let unusedRootOptions = ["--session": "name the replaying session with --as NAME"]
}

// MARK: - Private Functions

extension Navctl.Replay {
    /// Above this size, a connection closed during the `Replay` is said to be likely the daemon's `max-message-size`
    /// (1 MiB by default; as low as 1 KiB allowed, but rarely set below 64 KiB): a guess for the hint, not a rule.
    fileprivate static let smallestMessageLimit = 64 << 10

    /// `error`, a connection closed under a `Replay` of `bytes` bytes, with the daemon's message limit named: the
    /// daemon closes a connection whose message is over it, without a reply.
    fileprivate static func explainingSize(_ error: NavHostClientError, bytes: Int) -> NavHostClientError {
        var explained = error
        explained.message +=
            "; the recording is \(bytes) bytes, and navhostd closes a connection whose message is over its"
            + " max-message-size (1M unless limits.max-message-size or --max-message-size says otherwise):"
            + " a daemon with a larger limit replays it, or record fewer calls (flight-recorder-calls)"
        return explained
    }
}
