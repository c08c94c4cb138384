import ArgumentParser

/// A command that has no use for some of the options every navctl command takes: ArgumentParser decodes them for
/// `navctl` itself wherever they stand on the line (`navctl inspect --json`), so the command would run without a word
/// and without doing what they ask. It lists them, and why, to refuse them instead.
protocol UnusedRootOptions: ParsableCommand {
    /// The options the command refuses (`--json`), each with why it has no use for it.
    static var unusedRootOptions: [String: String] { get }
    /// The command as its refusal names it: `inspect`, `plugins list`. Its own name unless it says otherwise.
    static var spokenName: String { get }
}

extension UnusedRootOptions {
    static var spokenName: String { _commandName }

    /// Throws a usage error when `arguments` (navctl's, without the program's name) hold one of
    /// ``unusedRootOptions``, as `--json` or `--timeout=5`. Called from the command's `validate()`, so that the
    /// error comes with the command's own usage, which does not offer the option.
    static func refuseUnusedRootOptions(
        in arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) throws(ValidationError) {
        for argument in arguments {
            if argument == "--" { return }
            let option = String(argument.prefix { $0 != "=" })
            if let reason = unusedRootOptions[option] {
                throw ValidationError("\(spokenName) takes no \(option): \(reason)")
            }
        }
    }
}
