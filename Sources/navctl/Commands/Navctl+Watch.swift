import ArgumentParser
import NavHostClient

// MARK: - watch

extension Navctl {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a session live: the top screen and its state at every revision.",
            discussion: """
                On a terminal the view is redrawn at every revision, cut to the terminal's height; otherwise (or \
                with --plain) each revision \
                appends a line saying what changed, then the top screen and its state. --json prints every update \
                as one line, as the Watch replies carry them: {"snapshot":{…}} first, then {"event":{…}} per \
                revision, or {"snapshot":{…},"coalesced":true} when navctl fell behind.

                --diff prints the session as a document keyed by screen, then, for every revision, the RFC 7386 \
                merge patch that changes it, one JSON line each: {"document":{…}}, then {"patch":{…}}. A patch \
                names only what changed: {"revision":8,"screens":{"s2":{"state":{"value":{"filter":"lamp"}}}}}. Applied in \
                order, the patches give the document a new watch starts with.

                The watch runs until Ctrl-C (SIGINT) or SIGTERM, or until the daemon ends it (its session closes, \
                or it shuts down); each of these exits with code 0. A lost connection exits with 69.

                Examples:
                  navctl watch
                  navctl watch --session kiosk
                  navctl watch --json | jq -c 'select(.event) | .event.kind'
                  navctl watch --json --resume-from 41
                  navctl watch --diff
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var session: SessionOption
        @OptionGroup var output: OutputOptions

        @Flag(help: "Append lines even when standard output is a terminal, instead of redrawing.")
        var plain = false

        // Unconditional: a negative number is a bad value, not a missing one (`--resume-from -1`).
        @Option(
            name: .customLong("resume-from"),
            parsing: .unconditional,
            help: ArgumentHelp(
                "The last revision already seen: start with the events after it, if the daemon still holds them.",
                valueName: "revision"
            )
        )
        var resumeFrom: UInt64?

        @Flag(help: "Print the session's document, then one merge patch (RFC 7386) per revision, as JSON lines.")
        var diff = false

        func validate() throws {
            if diff, resumeFrom != nil {
                throw ValidationError("--diff starts with the whole document: drop --resume-from")
            }
        }

        func run() async throws {
            if diff {
                let session = self.session.name
                return try await Following.run(connection, rendering: DocumentRenderer()) {
                    client throws(NavHostClientError) in
                    try await client.watchDocument(session: session)
                }
            }
            let mode: WatchRenderer.Mode =
                output.json ? .json : (Console.outputIsTerminal && !plain ? .redraw : .lines)
            let session = self.session.name
            try await Following.run(
                connection,
                rendering: WatchRenderer(mode: mode, session: session)
            ) { client throws(NavHostClientError) in
                try await client.watch(session: session, resumeFrom: resumeFrom)
            }
        }
    }
}
