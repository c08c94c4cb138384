@preconcurrency import Glibc

/// navctl's output: replies on standard output, failures on standard error, each written at once.
///
/// Standard output is flushed after every write, so that a script reading `navctl watch` through a pipe gets each
/// update when it happens rather than when a buffer fills. A write that fails ends navctl with exit code 1: what it
/// was to print is lost (a full disk says so on standard error), and a watch whose reader has gone (`navctl watch |
/// head -1`) has no one left to follow for. navctl ignores `SIGPIPE`, as the networking library it uses does, so a
/// closed pipe is an `EPIPE` here rather than the signal that ends other programs; it ends navctl without a word.
enum Console {
    /// Writes `text`, written for people, and a newline to standard output. Its control characters but the line
    /// break and the tab are shown escaped (`\u{1B}`), as in ``printError(_:)``: the text holds what the daemon sent
    /// (a plugin's message, a screen's state), and raw, an escape sequence in it would drive the terminal. Line breaks
    /// stay, for text of several lines; what must be one line (a table's cell, an event) escapes them itself.
    static func print(_ text: String) {
        write(escapingControlCharacters(text, keepingLineBreaks: true) + "\n")
    }

    /// Writes `text` to standard output as it is: JSON (whose strings escape what must be), a recording, the
    /// terminal's own sequences.
    static func write(_ text: String) {
        fputs(text, stdout)
        flushOrExit()
    }

    /// Writes one line to standard error; line breaks inside `text` become spaces so that the line stays one, and
    /// other control characters are shown escaped (`\u{1B}`): an error names what the daemon, or whatever listens
    /// on the socket, sent back (a route as typed, a plugin's message), and raw, an escape sequence in it would
    /// drive the terminal (colours, a title, a cleared screen).
    static func printError(_ text: String) {
        let line = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: " ")
        fputs("\(escapingControlCharacters(line))\n", stderr)
    }

    /// `text` with its control characters but the tab (C0, DEL and C1) written as `\u{…}`; the line break (`\n`)
    /// too, unless `keepingLineBreaks`.
    static func escapingControlCharacters(_ text: String, keepingLineBreaks: Bool = false) -> String {
        escaping(in: text, where: { isControl($0) && !(keepingLineBreaks && $0 == "\n") }) {
            "\\u{\(String($0.value, radix: 16, uppercase: true))}"
        }
    }

    /// `text` with each scalar `shown` picks written as `spelling` spells it; `text` itself when it has none.
    static func escaping(
        in text: String,
        where shown: (Unicode.Scalar) -> Bool,
        as spelling: (Unicode.Scalar) -> String
    ) -> String {
        guard text.unicodeScalars.contains(where: shown) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if shown(scalar) {
                escaped.append(contentsOf: spelling(scalar).unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
    }

    /// Flushes standard output, or ends navctl with exit code 1 when a write to it failed.
    private static func flushOrExit() {
        guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return }
        let code = errno
        if code != EPIPE {
            fputs("navctl: cannot write standard output: \(String(cString: strerror(code)))\n", stderr)
        }
        // At once, from whichever thread wrote: `exit` would flush standard output again and run the process's
        // destructors while the networking threads still run. Standard error is not buffered.
        _exit(1)
    }

    /// Whether standard output is a terminal.
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The size of the terminal standard output is, when it is one that knows its size.
    static var terminalSize: (rows: Int, columns: Int)? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return nil }
        return (Int(size.ws_row), Int(size.ws_col))
    }
}
