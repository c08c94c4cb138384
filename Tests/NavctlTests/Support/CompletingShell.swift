import Foundation
import IntegrationHarness
import Testing

/// zsh or fish completing a navctl command line with the script `navctl --generate-completion-script` prints for it,
/// in a real interactive shell on a pseudo-terminal, as a Tab would.
///
/// zsh's `zsh/zpty` module drives both shells: it starts the shell on a pseudo-terminal, waits for the marker the
/// shell prints once its line editor reads, types the line, and waits for the marker printed once the completion has
/// run. No sleeps: every wait is for a marker, and the whole run is killed (and the test fails) past its limit.
///
/// - zsh: Tab runs the real completion system (`compinit`, the generated `_navctl`, `_arguments`, `_describe`) in the
///   line editor; `compadd` is wrapped to record every match it adds after zsh has matched it against the word being
///   completed, in the form zsh would insert it (quoted).
/// - fish: Tab runs `complete -C` on the line up to the cursor, with the line editor holding that line, and records
///   what fish offers (descriptions dropped). A bare `fish -c 'complete -C LINE'` cannot drive navctl's script: the
///   script asks `commandline -tC` for the cursor, which fish 3.6 answers only from a line editor's line.
enum CompletingShell: String, CaseIterable, CustomTestStringConvertible {
    case zsh
    case fish

    var testDescription: String { rawValue }

    /// The words the shell's completion of `line` offers, in the order offered: with the cursor at the line's end, or
    /// (zsh only) at the end of the word a `|` follows (the `|` is not part of the line).
    ///
    /// - Parameters:
    ///   - socketVariable: `NAVHOST_SOCKET`'s value; unset when `nil`.
    ///   - home: `HOME`'s value; a folder of the run's own when `nil`.
    ///   - programs: A folder put first on `PATH`, from which the shell runs `navctl`; the built navctl's when `nil`.
    ///   - limit: How long the completion (the shell's start-up and the Tab; not generating the script) may take before
    ///     it is killed and the test fails.
    func complete(
        _ line: String,
        socketVariable: String? = nil,
        home: String? = nil,
        programs: String? = nil,
        limit: Duration = .seconds(30)
    ) async throws -> [String] {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let typed = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        try #require(typed.count == 1 || self == .zsh, "only the zsh test types a cursor inside the line")
        let scriptPath = try await GeneratedCompletionScript.path(for: rawValue)
        try setUp.write(toFile: "\(folder)/\(setUpFileName)", atomically: true, encoding: .utf8)
        try Self.driver.write(toFile: "\(folder)/drive.zsh", atomically: true, encoding: .utf8)
        let offeredPath = "\(folder)/offered"

        let navctlFolder = programs ?? URL(fileURLWithPath: Navctl.executable).deletingLastPathComponent().path
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var environment = [
            "PATH=\(navctlFolder):\(path)", "HOME=\(home ?? folder)", "XDG_CONFIG_HOME=\(folder)/config",
            "XDG_DATA_HOME=\(folder)/data", "TERM=xterm", "COMPLETION_SCRIPT=\(scriptPath)",
            "OFFERED_FILE=\(offeredPath)",
        ]
        if let socketVariable { environment.append("NAVHOST_SOCKET=\(socketVariable)") }
        if self == .zsh { environment.append("COMPLETION_DUMP=\(try await Self.zshCompletionDump.value)") }
        let cursorMoves = typed.count == 2 ? typed[1].count : 0
        let run = try await ChildProcess.run(
            "/usr/bin/env",
            ["-u", "NAVHOST_SOCKET"] + environment
                + ["/usr/bin/zsh", "-f", "\(folder)/drive.zsh", rawValue, folder, typed.joined(), "\(cursorMoves)"],
            limit: limit
        )
        #expect(run.status == 0, "the \(rawValue) driver failed: \(run.errors)")
        #expect(run.errors.isEmpty, "\(run.errors)")
        guard FileManager.default.fileExists(atPath: offeredPath) else { return [] }
        let offered = try String(contentsOfFile: offeredPath, encoding: .utf8)
        return offered.split(separator: "\n").map(String.init)
    }

    /// The file the shell reads its set-up from, in the run's folder.
    private var setUpFileName: String {
        switch self {
        case .zsh: ".zshrc"
        case .fish: "setup.fish"
        }
    }

    /// The shell's set-up: the completion system, navctl's script, a Tab that records what is offered into
    /// `$OFFERED_FILE`, and the markers the driver waits for.
    private var setUp: String {
        switch self {
        case .zsh:
            #"""
            PS1='%% '
            autoload -U compinit && compinit -u -C -d "$COMPLETION_DUMP"
            source "$COMPLETION_SCRIPT"
            # Every match added, once zsh has matched it against the word: recorded, then added as it would be.
            # Calls that only compute matches (-O, -A, -D) are passed on untouched.
            compadd() {
                if [[ " ${(j: :)@[1,(i)(-|--)]} " == *' '-[OAD]* ]]; then builtin compadd "$@"; return; fi
                local -a __navctl_test_offered
                builtin compadd -A __navctl_test_offered "$@"
                (( ${#__navctl_test_offered} )) && print -rl -- "${__navctl_test_offered[@]}" >>"$OFFERED_FILE"
                builtin compadd "$@"
            }
            zle -C __navctl_test_complete complete-word _main_complete
            __navctl_test_tab() { zle __navctl_test_complete; print -n COMPLETION-DONE; }
            zle -N __navctl_test_tab
            bindkey '^I' __navctl_test_tab
            zle-line-init() { print -n LINE-READY; }
            zle -N zle-line-init
            """#
        case .fish:
            #"""
            source $COMPLETION_SCRIPT
            function __navctl_test_tab
                complete -C (commandline -cp | string collect) | string replace -r '\t.*' '' >$OFFERED_FILE
                printf %s COMPLETION-DONE
            end
            bind \t __navctl_test_tab
            function __navctl_test_ready --on-event fish_prompt
                printf %s LINE-READY
            end
            """#
        }
    }

    /// The file of zsh's completion system as `compinit` finds it in zsh's function folders, dumped once per test
    /// process; every zsh run loads it as it is (`compinit -C -d`), as a user's zsh loads its `.zcompdump`, and adds
    /// navctl's script to it.
    ///
    /// Without it (`compinit -D`, which reads every function folder for every run) the completion system cost each
    /// zsh run about 0.45 s of CPU before its line editor was ready, inside the run's limit; with it, 0.02 s.
    private static let zshCompletionDump = Task<String, any Error> {
        let path = "\(try TestPaths.temporaryDirectory())/zcompdump"
        let dump = try await ChildProcess.run(
            "/usr/bin/zsh",
            ["-f", "-c", #"autoload -U compinit && compinit -u -d "$1""#, "zsh", path]
        )
        guard dump.status == 0, FileManager.default.fileExists(atPath: path) else {
            throw ZshCompletionDumpFailed(status: dump.status, errors: dump.errors)
        }
        return path
    }

    /// zsh could not dump its completion system: every zsh completion test fails with this.
    private struct ZshCompletionDumpFailed: Error, CustomStringConvertible {
        var status: Int32
        var errors: String

        var description: String { "zsh's compinit -d ended with status \(status): \(errors)" }
    }

    /// Starts the shell (`$1`, set up from the folder `$2`) on a pseudo-terminal, types the line `$3`, moves the
    /// cursor `$4` characters back, and presses Tab.
    private static let driver = #"""
        zmodload zsh/zpty || exit 70
        if [[ $1 == zsh ]]; then
            zpty shell "ZDOTDIR=${(q)2} exec zsh -i"
        else
            zpty shell "exec fish --no-config --private --init-command ${(q):-source ${(q)2}/setup.fish}"
        fi
        zpty -r shell ignored '*LINE-READY*' || exit 71
        keys=$3
        repeat $4 keys+=$'\x02'
        zpty -w -n shell "$keys"$'\t'
        zpty -r shell ignored '*COMPLETION-DONE*' || exit 72
        zpty -d shell
        """#
}
