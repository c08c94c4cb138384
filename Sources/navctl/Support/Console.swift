@preconcurrency import Glibc

/// navctl's output: replies on standard output, failures on standard error, each written at once.
///
/// Standard output is flushed after every write, so that a script reading `navctl watch` through a pipe gets each
/// update when it happens rather than when a buffer fills.
enum Console {
    /// Writes `text` and a newline to standard output.
    static func print(_ text: String) {
        fputs(text, stdout)
        fputs("\n", stdout)
        fflush(stdout)
    }

    /// Writes `text` to standard output as it is.
    static func write(_ text: String) {
        fputs(text, stdout)
        fflush(stdout)
    }

    /// Writes one line to standard error; line breaks inside `text` become spaces so that the line stays one.
    static func printError(_ text: String) {
        let line = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: " ")
        fputs("\(line)\n", stderr)
    }

    /// Whether standard output is a terminal.
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
