import Glibc
import NavHostClient

/// The words of the command line the shell is completing, as the shell gives them (quotes and escapes unread), and
/// the values of the options that say which daemon and session to ask.
struct CompletedLine {
    let words: [String]

    /// The value given to `option` on the line, as `--option VALUE` or `--option=VALUE` (the last one counts, as for
    /// ArgumentParser), with one pair of surrounding quotes taken off; `nil` when the line does not give it. bash
    /// gives `--option=VALUE` as three words, `=` one of them (`=` is in its `COMP_WORDBREAKS`); zsh and fish as one.
    func value(of option: String) -> String? {
        word(after: option).map(Self.unquoted)
    }

    /// The socket the line names (`--socket`; a leading `~/` outside quotes read as the home folder, as the shell
    /// reads it), else navctl's default.
    var socketPath: String {
        guard let word = word(after: "--socket") else { return NavHostClient.defaultSocketPath() }
        if word.hasPrefix("~/"), let home = getenv("HOME") { return String(cString: home) + word.dropFirst() }
        return Self.unquoted(word)
    }

    /// The word given as `option`'s value, as typed (the last one, as ``value(of:)`` reads it).
    private func word(after option: String) -> String? {
        var value: String?
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            if word == "--" { break }
            if word == option, index + 1 < words.endIndex {
                let split = words[index + 1] == "=" && index + 2 < words.endIndex
                value = words[index + (split ? 2 : 1)]
                index += split ? 3 : 2
                continue
            }
            if word.hasPrefix(option + "=") { value = String(word.dropFirst(option.count + 1)) }
            index += 1
        }
        return value
    }

    /// `word` without one pair of surrounding single or double quotes.
    private static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first else {
            return word
        }
        return String(word.dropFirst().dropLast())
    }
}
