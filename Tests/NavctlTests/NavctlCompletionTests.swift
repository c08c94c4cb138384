import Foundation
import IntegrationHarness
import NavHostClient
import Testing

/// navctl's shell completion as bash runs it: the script `navctl --generate-completion-script bash` prints is sourced
/// into a real bash, whose completion function runs for a command line as a Tab would, and navctl asks the real
/// daemon for the names it offers.
@Suite(
    "navctl's shell completion offers the names the daemon has",
    .enabled(if: DaemonProcess.examplePluginsAreStaged, "needs the example plugins staged by the build")
)
struct NavctlCompletionTests {
    @Test("A route is completed from the loaded features' routes")
    func routes() async throws {
        try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
            let navigate = try await Self.complete("navctl --socket \(daemon.socketPath) navigate products.")
            #expect(navigate == ["products.detail", "products.list"])
            let popTo = try await Self.complete("navctl popto --socket \(daemon.socketPath) pro")
            #expect(popTo == ["products.detail", "products.list", "profile.edit", "profile.user"])
        }
    }

    @Test("An intent is completed from the top screen's intents, or from the screen --screen names")
    func intents() async throws {
        try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
            let routes = try await NavHostClient.withConnection(socketPath: daemon.socketPath) { client in
                try await client.routes()
            }
            let intents = { (route: String) in routes.first { $0.route == route }?.intents.sorted() ?? [] }
            let home = try await Self.complete("navctl --socket \(daemon.socketPath) send ")
            #expect(home == intents("home.main"))
            #expect(home.contains("onTappedProducts"))

            let navigate = try await Navctl.run(["navigate", "products.list", "--socket", daemon.socketPath])
            #expect(navigate.status == 0, "\(navigate.errors)")
            let list = try await Self.complete("navctl send --socket \(daemon.socketPath) onChanged")
            #expect(list == intents("products.list").filter { $0.hasPrefix("onChanged") })
            #expect(list.contains("onChangedFilter"))
            // The root screen, named by --screen, still has Home's intents.
            let root = try await Self.complete("navctl send --screen s1 --socket \(daemon.socketPath) ")
            #expect(root == home)
            // --screen itself is completed from the stack, top first (--socket=PATH, which bash gives as three
            // words, names the daemon as well).
            let screens = try await Self.complete("navctl send --socket=\(daemon.socketPath) --screen ")
            #expect(screens == ["s2", "s1"])
        }
    }

    @Test("A session is completed from the open sessions, a plugin from the loaded ones, over $NAVHOST_SOCKET too")
    func sessionsAndPlugins() async throws {
        try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
            let open = try await Navctl.run([
                "session", "open", "passenger", "home.main", "--socket", daemon.socketPath,
            ])
            #expect(open.status == 0, "\(open.errors)")
            let sessions = try await Self.complete("navctl --session ", socketVariable: daemon.socketPath)
            #expect(sessions == ["main", "passenger"])
            let close = try await Self.complete("navctl session close --socket \(daemon.socketPath) pa")
            #expect(close == ["passenger"])
            let plugins = try await Self.complete("navctl plugins reload ", socketVariable: daemon.socketPath)
            #expect(plugins == ["Home", "Products", "Settings", "UserProfile"])
            // --socket as the words are typed: in quotes, or under the home folder as ~/ (a path it runs from).
            let quoted = try await Self.complete("navctl --socket '\(daemon.socketPath)' --session ")
            #expect(quoted == ["main", "passenger"])
            let socket = URL(fileURLWithPath: daemon.socketPath)
            let home = socket.deletingLastPathComponent().path
            let tilde = try await Self.complete("navctl --socket ~/\(socket.lastPathComponent) --session ", home: home)
            #expect(tilde == ["main", "passenger"])
        }
    }

    @Test("A word before the end of the line is completed as a word, whatever follows it")
    func wordInsideTheLine() async throws {
        try await NavctlDaemonTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon in
            let routes = try await Self.complete("navctl navigate pro| --socket \(daemon.socketPath)")
            #expect(routes == ["products.detail", "products.list", "profile.edit", "profile.user"])
            let sessions = try await Self.complete("navctl --session m| --socket \(daemon.socketPath) stack")
            #expect(sessions == ["main"])
        }
    }

    @Test("With no daemon at the socket, or one that never answers, nothing is offered and nothing is printed")
    func unreachable() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await Self.complete("navctl --socket \(directory)/none navigate ") == [])
        // Listening, never accepting: the connection is made and the call sent, and nothing answers; navctl gives up
        // after NameCompletion.patience, 1 s (the run is killed, and the test fails, if it would hold the shell for
        // ten).
        let descriptor = try boundUnixSocket(at: "\(directory)/mute")
        defer { close(descriptor) }
        try #require(listen(descriptor, 8) == 0)
        let mute = try await Self.complete("navctl --socket \(directory)/mute plugins reload ", limit: .seconds(10))
        #expect(mute == [])
    }

    @Test("A name that is not a plain name is not offered: bash would expand it as a shell word")
    func hostileNames() async throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try DroppingVarlinkServer(
            replies: [["sessions": ["main", .string("x$(touch \(directory)/ran)"), "a b", "c;d"]]],
            continues: false
        )
        #expect(try await Self.complete("navctl --socket \(server.socketPath) --session ") == ["main"])
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/ran"))
    }

    // MARK: - Bash

    /// The words bash's completion of `line` offers, in the order offered: with the cursor at the line's end, or at
    /// the end of the word a `|` follows (the `|` is not part of the line; only a word's end is supported).
    ///
    /// - Parameters:
    ///   - socketVariable: `NAVHOST_SOCKET`'s value; unset when `nil`.
    ///   - home: `HOME`'s value; the test's own when `nil`.
    ///   - limit: How long the completion (bash's start-up and the Tab; not generating the script) may take before
    ///     it is killed and the test fails.
    static func complete(
        _ line: String,
        socketVariable: String? = nil,
        home: String? = nil,
        limit: Duration = .seconds(30)
    ) async throws -> [String] {
        let run = try await run(line, socketVariable: socketVariable, home: home, limit: limit)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty, "\(run.errors)")
        return run.output.split(separator: "\n").map(String.init)
    }

    /// Runs bash's completion of `line` as a Tab at its end (or at its `|`) would, with `NAVHOST_SOCKET` set to
    /// `socketVariable` when given, and prints what it offers, one word a line.
    static func run(
        _ line: String,
        socketVariable: String?,
        home: String?,
        limit: Duration
    ) async throws -> ChildProcess.Result {
        // The script navctl generates is sourced from its file ($5), generated before the run: the limit bounds what a
        // Tab costs (bash's start-up and the completion), not generating the script (GeneratedCompletionScript).
        // bash-completion turns extglob on for every completion script; the words are split as bash splits them
        // (no quotes in these lines; `=` a word of its own, as COMP_WORDBREAKS has it), the first one the built
        // navctl, which the script runs for the names.
        let completionScript = try await GeneratedCompletionScript.path(for: "bash")
        let script = #"""
            shopt -s extglob
            if [[ -n $3 ]]; then export NAVHOST_SOCKET=$3; else unset NAVHOST_SOCKET; fi
            if [[ -n $4 ]]; then export HOME=$4; fi
            source "$5" || exit 1
            if [[ $2 == *"|"* ]]; then before=${2%%|*} COMP_LINE=${2%%|*}${2#*|}; else before=$2 COMP_LINE=$2; fi
            if [[ $2 == *"|"* && $before == *" " ]]; then echo "the | must end a word" >&2; exit 2; fi
            COMP_POINT=${#before}
            read -r -a COMP_WORDS <<<"${COMP_LINE//=/ = }"
            read -r -a words_before <<<"${before//=/ = }"
            if [[ $before == *" " ]]; then
                COMP_WORDS+=("")
                COMP_CWORD=${#words_before[@]}
            else
                COMP_CWORD=$((${#words_before[@]} - 1))
            fi
            COMP_WORDS[0]=$1
            _navctl navctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            if ((${#COMPREPLY[@]} > 0)); then printf '%s\n' "${COMPREPLY[@]}"; fi
            """#
        return try await ChildProcess.run(
            "/bin/bash",
            ["-c", script, "complete", Navctl.executable, line, socketVariable ?? "", home ?? "", completionScript],
            limit: limit
        )
    }
}
