public import ArgumentParser
import NavHostSpelling

/// A command line whose command is not one of the program's: ArgumentParser says only "2 unexpected arguments",
/// which does not tell a typo (`naviagte`) from a stray word. This names the word, and the command it is probably a
/// typo of. A group's own subcommands are looked at too (`navctl plugins relaod`): ArgumentParser hands the words
/// after a group to its default subcommand, whose usage it then prints as if that one had been meant.
///
/// ```swift
/// static func main() async {
///     exitOnUnknownCommand(optionsTakingValues: ["--socket"])
///     await main(nil)
/// }
/// ```
public struct UnknownCommand: Error, CustomStringConvertible {
    /// The program's name, and the group's when the word follows one, as their help is asked for: `navctl`,
    /// `navctl plugins`.
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
    /// not an option is one of `command`'s subcommands or `help` (or there is none), and so on down a group's.
    ///
    /// - Parameter optionsTakingValues: The options before a command whose next word is their value, besides
    ///   ArgumentParser's own `--generate-completion-script`, which every program takes.
    public static func find(
        in arguments: [String],
        of command: any ParsableCommand.Type,
        optionsTakingValues: Set<String> = []
    ) -> UnknownCommand? {
        find(
            in: arguments[...],
            of: command,
            named: command._commandName,
            optionsTakingValues: optionsTakingValues.union(["--generate-completion-script"])
        )
    }

    private static func find(
        in arguments: ArraySlice<String>,
        of command: any ParsableCommand.Type,
        named program: String,
        optionsTakingValues: Set<String>
    ) -> UnknownCommand? {
        let subcommands = subcommands(of: command)
        guard !subcommands.isEmpty else { return nil }
        var commands = ["help"]
        for subcommand in subcommands { commands.append(subcommand._commandName) }
        guard let index = firstCommandWord(in: arguments, optionsTakingValues: optionsTakingValues) else { return nil }
        let word = arguments[index]
        guard let known = subcommands.first(where: { $0._commandName == word }) else {
            // `help COMMAND`: the command is looked at as if it came first (`navctl help nope` printed the whole
            // help, exit code 0).
            if word == "help" {
                return find(
                    in: arguments[(index + 1)...],
                    of: command,
                    named: program,
                    optionsTakingValues: optionsTakingValues
                )
            }
            let suggestion = Spelling.closest(to: word, among: commands)
            return UnknownCommand(program: program, word: word, suggestion: suggestion)
        }
        return find(
            in: arguments[(index + 1)...],
            of: known,
            named: "\(program) \(word)",
            optionsTakingValues: optionsTakingValues
        )
    }

    /// `command`'s subcommands, grouped or not.
    private static func subcommands(of command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        let configuration = command.configuration
        // Loops: swiftc 6.3.1 crashed on the same as one chain of `+`, `flatMap` and `map`.
        var subcommands = configuration.subcommands
        for group in configuration.groupedSubcommands { subcommands.append(contentsOf: group.subcommands) }
        return subcommands
    }

    /// The position of the first word in `arguments` that is neither an option nor an option's value; `nil` when
    /// there is none before `--`.
    static func firstCommandWord(in arguments: ArraySlice<String>, optionsTakingValues: Set<String>) -> Int? {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { return nil }
            guard word.hasPrefix("-") else { return index }
            // `--socket=PATH` carries its value; `--socket PATH` is followed by it.
            index += optionsTakingValues.contains(word) ? 2 : 1
        }
        return nil
    }
}

extension ParsableCommand {
    /// Exits with a usage error that names the unknown command, and the one it is likely a typo of, when the
    /// program's command line has one where a subcommand was expected (``UnknownCommand``), or has none (options alone,
    /// or nothing); returns otherwise.
    ///
    /// - Parameter optionsTakingValues: The options before a command whose next word is their value.
    public static func exitOnUnknownCommand(optionsTakingValues: Set<String> = []) {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // No command at all, options alone or nothing: the help, as a usage error (ArgumentParser printed it on
        // standard output and exited with 0, which a script takes for success). Asking for the help, the version or
        // a completion script (`---completion`, as the scripts ask) is no command and fine.
        let asks = ["-h", "--help", "--version", "--experimental-dump-help", "--generate-completion-script"]
        let asksForItself = arguments.contains { word in
            asks.contains { word == $0 || word.hasPrefix("\($0)=") } || word.hasPrefix("---")
        }
        let options = optionsTakingValues.union(["--generate-completion-script"])
        if !configuration.subcommands.isEmpty, !asksForItself,
            UnknownCommand.firstCommandWord(in: arguments[...], optionsTakingValues: options) == nil
        {
            exit(withError: ValidationError("a command is missing (\(_commandName) --help lists the commands)"))
        }
        if let unknown = UnknownCommand.find(in: arguments, of: Self.self, optionsTakingValues: optionsTakingValues) {
            // The program's usage: a group's own would be printed without the program's name (`Usage: plugins
            // <subcommand>`); the message names the group's help.
            exit(withError: ValidationError(unknown.description))
        }
    }
}
