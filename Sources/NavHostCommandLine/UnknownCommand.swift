public import ArgumentParser
import NavHostSpelling

/// A command line whose command is not one of the program's: ArgumentParser says only "2 unexpected arguments",
/// which does not tell a typo (`naviagte`) from a stray word. This names the word, and the command it is probably a
/// typo of.
///
/// ```swift
/// static func main() async {
///     exitOnUnknownCommand(optionsTakingValues: ["--socket"])
///     await main(nil)
/// }
/// ```
public struct UnknownCommand: Error, CustomStringConvertible {
    /// The program's name, as its help is asked for: `navctl`.
    public let program: String
    /// The word where a command was expected.
    public let word: String
    /// The command `word` is spelt most like, when one is close.
    public let suggestion: String?

    public var description: String {
        let hint = suggestion.map { "; did you mean '\($0)'?" } ?? ""
        return "unknown command '\(word)'\(hint) (\(program) --help lists the commands)"
    }

    /// The unknown command in `arguments` (the program's, without its name), or `nil` when its first word that is
    /// not an option is one of `command`'s subcommands or `help` (or there is none).
    ///
    /// - Parameter optionsTakingValues: The options before a command whose next word is their value, besides
    ///   ArgumentParser's own `--generate-completion-script`, which every program takes.
    public static func find(
        in arguments: [String],
        of command: any ParsableCommand.Type,
        optionsTakingValues: Set<String> = []
    ) -> UnknownCommand? {
        let configuration = command.configuration
        var commands = ["help"]
        // Loops: swiftc 6.3.1 crashed on the same as one chain of `+`, `flatMap` and `map`.
        for subcommand in configuration.subcommands { commands.append(subcommand._commandName) }
        for group in configuration.groupedSubcommands {
            for subcommand in group.subcommands { commands.append(subcommand._commandName) }
        }
        return find(
            in: arguments,
            commands: commands,
            optionsTakingValues: optionsTakingValues.union(["--generate-completion-script"])
        )
        .map { UnknownCommand(program: command._commandName, word: $0.word, suggestion: $0.suggestion) }
    }

    /// ``find(in:of:optionsTakingValues:)`` over the commands `commands`: the unknown word and the suggestion.
    static func find(
        in arguments: [String],
        commands: [String],
        optionsTakingValues: Set<String>
    ) -> (word: String, suggestion: String?)? {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { return nil }
            if word.hasPrefix("-") {
                // `--socket=PATH` carries its value; `--socket PATH` is followed by it.
                let takesNext = optionsTakingValues.contains(word)
                index += takesNext ? 2 : 1
                continue
            }
            guard !commands.contains(word) else { return nil }
            return (word, Spelling.closest(to: word, among: commands))
        }
        return nil
    }
}

extension ParsableCommand {
    /// Exits with a usage error that names the unknown command, and the one it is likely a typo of, when the
    /// program's command line has one where a subcommand was expected (``UnknownCommand``); returns otherwise.
    ///
    /// - Parameter optionsTakingValues: The options before a command whose next word is their value.
    public static func exitOnUnknownCommand(optionsTakingValues: Set<String> = []) {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let unknown = UnknownCommand.find(in: arguments, of: Self.self, optionsTakingValues: optionsTakingValues) {
            exit(withError: ValidationError(unknown.description))
        }
    }
}
