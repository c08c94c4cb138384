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
/// - zsh: Tab is the test's own complete-word widget, which runs the real completion system (`_main_complete`, with
///   `compinit`, the generated `_navctl`, `_arguments`, `_describe`) in the line editor; `compadd` is wrapped to record
///   every match it adds after zsh has matched it against the word being completed, in the form zsh would insert it
///   (quoted) and in the order zsh lists it.
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
    /// It also checks that the completion ran, so that "nothing offered" cannot pass for "completion never ran": every
    /// `navctl` the shell runs goes through a stand-in first on `PATH` that logs its arguments, and navctl must have
    /// been asked for names (`---completion`) `navctlCalls` times for this Tab; in zsh, navctl's completion function
    /// must also have been called once.
    ///
    /// The shell starts with no environment but the run's own (`PATH`, `HOME`, `TERM`, `LANG`, `LD_LIBRARY_PATH` and
    /// the test's variables) and no global or user start-up file but the test's: a developer's `EDITOR`, `FPATH` or
    /// /etc/zsh/zshrc cannot change what it does.
    ///
    /// - Parameters:
    ///   - socketVariable: `NAVHOST_SOCKET`'s value; unset when `nil`.
    ///   - home: `HOME`'s value; a folder of the run's own when `nil`.
    ///   - programs: A folder holding the `navctl` the shell runs; the built navctl's when `nil`.
    ///   - navctlCalls: How many times the Tab must ask navctl for names.
    ///   - limit: How long the completion (the shell's start-up and the Tab; not generating the script) may take before
    ///     it is killed and the test fails.
    func complete(
        _ line: String,
        socketVariable: String? = nil,
        home: String? = nil,
        programs: String? = nil,
        navctlCalls: Int = 1,
        limit: Duration = .seconds(30),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let typed = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        try #require(typed.count == 1 || self == .zsh, "only the zsh test types a cursor inside the line")
        let scriptPath = try await GeneratedCompletionScript.path(for: rawValue)
        try setUp.write(toFile: "\(folder)/\(setUpFileName)", atomically: true, encoding: .utf8)
        try Self.driver.write(toFile: "\(folder)/drive.zsh", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(folder)/logged", withIntermediateDirectories: false)
        try Self.loggingNavctl.write(toFile: "\(folder)/logged/navctl", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(folder)/logged/navctl")
        let offeredPath = "\(folder)/offered"
        let callsPath = "\(folder)/navctl-calls"
        let ranPath = "\(folder)/completion-ran"

        let navctl = programs.map { "\($0)/navctl" } ?? Navctl.executable
        let inherited = ProcessInfo.processInfo.environment
        var environment = [
            "PATH=\(folder)/logged:\(inherited["PATH"] ?? "/usr/bin:/bin")", "HOME=\(home ?? folder)",
            "XDG_CONFIG_HOME=\(folder)/config", "XDG_DATA_HOME=\(folder)/data", "TERM=xterm", "LANG=C.UTF-8",
            "COMPLETION_SCRIPT=\(scriptPath)", "OFFERED_FILE=\(offeredPath)", "NAVCTL_PROGRAM=\(navctl)",
            "NAVCTL_CALLS_FILE=\(callsPath)", "COMPLETION_RAN_FILE=\(ranPath)",
        ]
        if let libraries = inherited["LD_LIBRARY_PATH"] { environment.append("LD_LIBRARY_PATH=\(libraries)") }
        if let socketVariable { environment.append("NAVHOST_SOCKET=\(socketVariable)") }
        if self == .zsh { environment.append("COMPLETION_DUMP=\(try await Self.zshCompletionDump.value)") }
        let cursorMoves = typed.count == 2 ? typed[1].count : 0
        let run = try await ChildProcess.run(
            "/usr/bin/env",
            ["-i"] + environment
                + ["/usr/bin/zsh", "-f", "\(folder)/drive.zsh", rawValue, folder, typed.joined(), "\(cursorMoves)"],
            limit: limit
        )
        #expect(run.status == 0, "the \(rawValue) driver failed: \(run.errors)", sourceLocation: sourceLocation)
        #expect(run.errors.isEmpty, "\(run.errors)", sourceLocation: sourceLocation)
        let calls = Self.lines(ofFile: callsPath)
        #expect(
            calls.filter { $0.hasPrefix("---completion ") }.count == navctlCalls,
            "navctl asked for names other than \(navctlCalls) times for one Tab: \(calls)",
            sourceLocation: sourceLocation
        )
        if self == .zsh {
            #expect(
                Self.lines(ofFile: ranPath) == ["_navctl"],
                "zsh's Tab did not call navctl's completion function once: \(Self.lines(ofFile: ranPath))",
                sourceLocation: sourceLocation
            )
        }
        return Self.lines(ofFile: offeredPath)
    }

    /// The lines of a file the shell wrote; none when it wrote none.
    private static func lines(ofFile path: String) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// The `navctl` first on the shell's `PATH`: logs its arguments, one call a line, into `$NAVCTL_CALLS_FILE`, and
    /// runs `$NAVCTL_PROGRAM` with them.
    private static let loggingNavctl = """
        #!/bin/sh
        printf '%s\\n' "$*" >>"$NAVCTL_CALLS_FILE"
        exec "$NAVCTL_PROGRAM" "$@"

        """

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
            bindkey -e
            autoload -U compinit && compinit -u -C -d "$COMPLETION_DUMP"
            source "$COMPLETION_SCRIPT"
            # navctl's completion function, as compdef registered it: logs each call, so a Tab that never reached it
            # (no completion system, no script) shows.
            functions[__navctl_test_completion]=$functions[_navctl]
            _navctl() { print -r -- _navctl >>"$COMPLETION_RAN_FILE"; __navctl_test_completion "$@"; }
            # Every match added, once zsh has matched it against the word: recorded, then added as it would be. The
            # matches of one call are recorded in the order zsh lists them: as added in an unsorted group (-V, or
            # -o nosort, which _describe -V passes), sorted in a sorted one (-J, or no group: zsh sorts by what it
            # displays, which starts with the match). Calls that only compute matches (-O, -A, -D) are passed on
            # untouched.
            compadd() {
                local -i i=1 j sorted=1 nosort=0
                local word letter order
                while (( i <= $# )); do
                    word=${@[i]}
                    [[ $word == (-|--) || $word != -* ]] && break
                    for (( j = 2; j <= ${#word}; j++ )); do
                        letter=${word[j]}
                        case $letter in
                            ([OAD]) builtin compadd "$@"; return ;;
                            ([PSpsiIWdJVXxrRMFE])
                                [[ $letter == J ]] && sorted=1
                                [[ $letter == V ]] && sorted=0
                                (( j == ${#word} )) && (( i++ ))
                                break ;;
                            (o)
                                order=${word[j+1,-1]}
                                if [[ -z $order && ${@[i+1]} == (ma|no|nu|re)* ]]; then order=${@[i+1]}; (( i++ )); fi
                                [[ $order == (|*,)no* ]] && nosort=1
                                break ;;
                        esac
                    done
                    (( i++ ))
                done
                local -a __navctl_test_offered
                builtin compadd -A __navctl_test_offered "$@"
                (( sorted && ! nosort )) && __navctl_test_offered=("${(@o)__navctl_test_offered}")
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
        // No environment (a developer's FPATH would change the folders compinit reads), no start-up file.
        let dump = try await ChildProcess.run(
            "/usr/bin/env",
            [
                "-i", "PATH=/usr/bin:/bin", "/usr/bin/zsh", "-f", "-d", "-c",
                #"autoload -U compinit && compinit -u -d "$1""#, "zsh", path,
            ]
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
    /// cursor `$4` characters back, and presses Tab. zsh starts with no global start-up file (`-d`: Debian's
    /// /etc/zsh/zshrc runs its own compinit), only the folder's .zshrc. When a marker does not come, it prints what
    /// the shell wrote to its terminal until then.
    private static let driver = #"""
        zmodload zsh/zpty || exit 70
        if [[ $1 == zsh ]]; then
            zpty shell "ZDOTDIR=${(q)2} exec zsh -d -i"
        else
            zpty shell "exec fish --no-config --private --init-command ${(q):-source ${(q)2}/setup.fish}"
        fi
        # zpty -r also succeeds when the shell has ended after writing something: the marker is checked.
        zpty -r shell written '*LINE-READY*'
        [[ $written == *LINE-READY* ]] || { print -r -- "no LINE-READY from $1, only: $written" >&2; exit 71; }
        keys=$3
        repeat $4 keys+=$'\x02'
        zpty -w -n shell "$keys"$'\t'
        zpty -r shell written '*COMPLETION-DONE*'
        [[ $written == *COMPLETION-DONE* ]] ||
            { print -r -- "no COMPLETION-DONE from $1, only: $written" >&2; exit 72; }
        zpty -d shell
        """#
}
