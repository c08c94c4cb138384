public import ArgumentParser

/// A command line whose command is not one of the program's: ArgumentParser says only "2 unexpected arguments",
/// which does not tell a typo (`naviagte`) from a stray word. This names the word, and the command it is probably a
/// typo of.
///
/// ```swift
/// if let unknown = UnknownCommand.find(in: arguments, of: Navctl.self, optionsTakingValues: ["--socket"]) {
///     Navctl.exit(withError: ValidationError(unknown.description))
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
    /// - Parameter optionsTakingValues: The options before a command whose next word is their value.
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
        return find(in: arguments, commands: commands, optionsTakingValues: optionsTakingValues)
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
            return (word, closest(to: word, among: commands))
        }
        return nil
    }
}

// MARK: - Private Functions

extension UnknownCommand {
    /// The command of `commands` at most two edits from `word` (the fewest wins), or the one `word` begins.
    private static func closest(to word: String, among commands: [String]) -> String? {
        let scored = commands.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= 2 }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        return word.count >= 3 ? commands.first { $0.hasPrefix(word) } : nil
    }

    /// The Levenshtein distance between `a` and `b`, an adjacent swap counting as one edit (`naviagte`).
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
