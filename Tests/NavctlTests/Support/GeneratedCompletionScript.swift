import Foundation
import IntegrationHarness
import Synchronization

/// The completion script `navctl --generate-completion-script SHELL` prints, generated once per test process for each
/// shell and kept in a file that every completion of that shell sources.
///
/// The script depends on navctl's commands only, so one generation serves every test. It is also navctl's costliest
/// run in a debug build: about 0.22 s of CPU, nearly all of it ArgumentParser checking the whole command tree, which
/// it does in debug builds only. Generated afresh for each completion, as the tests once did, it was most of what a
/// completion cost: with the bash, zsh and fish suites started together (load 16 on 2 cores), 55 generations took a
/// median 8.2 s each, and a bash completion 9 to 11 s, of which navctl's own run took 1.3 s (median); the bash "no
/// daemon" test, whose run the script was generated in, went past its 10 s limit for a 1 s give-up.
///
/// The file is left in the test's temporary folder (`make test` removes it when every test passes).
enum GeneratedCompletionScript {
    /// The path of the file holding navctl's completion script for `shell` (`bash`, `zsh` or `fish`), generating it
    /// on the first call for that shell; later calls wait for that generation.
    static func path(for shell: String) async throws -> String {
        let generation = generations.withLock { generations in
            if let generation = generations[shell] { return generation }
            let generation = Task { try await generate(for: shell) }
            generations[shell] = generation
            return generation
        }
        return try await generation.value
    }

    /// navctl could not print the script: every completion test of the shell fails with this.
    struct Failed: Error, CustomStringConvertible {
        var shell: String
        var status: Int32
        var errors: String

        var description: String {
            "navctl --generate-completion-script \(shell) ended with status \(status): \(errors)"
        }
    }

    /// The generation of each shell's script, started by the first call that needed it.
    private static let generations = Mutex<[String: Task<String, any Error>]>([:])

    private static func generate(for shell: String) async throws -> String {
        let run = try await ChildProcess.run(Navctl.executable, ["--generate-completion-script", shell])
        guard run.status == 0, !run.output.isEmpty else {
            throw Failed(shell: shell, status: run.status, errors: run.errors)
        }
        let path = "\(try TestPaths.temporaryDirectory())/navctl.\(shell)"
        try run.output.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
