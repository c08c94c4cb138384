import ArgumentParser
import Glibc
import NavHostClient

/// Completing a name the daemon knows while the shell completes a word: a route, an intent of the screen an intent
/// would go to, a screen of the stack, a loaded plugin, an open session.
///
/// The completion scripts (`navctl --generate-completion-script bash|zsh|fish`, installed by `make install`) run
/// navctl for such a word as the user presses Tab. navctl then connects to the socket the command line names so far
/// (`--socket`, else `$NAVHOST_SOCKET`, else the default), asks, and prints the names that start with what is typed.
/// It prints nothing when the daemon cannot be reached or has not answered within ``patience``: completing never
/// prints an error into the command line, and never holds the shell for long.
enum NameCompletion {
    /// Route IDs (navigate, present, popto, replace, session open).
    static let routes = CompletionKind.custom { words, _, prefix in
        await names(startingWith: prefix, words: words) { client, _ throws(NavHostClientError) in
            try await client.routes().map(\.route)
        }
    }

    /// The intents of the screen `send` would go to: `--screen`'s, else the top screen's.
    static let intents = CompletionKind.custom { words, _, prefix in
        await names(startingWith: prefix, words: words) { client, line throws(NavHostClientError) in
            let stack = try await client.stack(session: line.value(of: "--session"))
            let screenID = line.value(of: "--screen")
            guard let screen = screenID.map({ id in stack.stack.first { $0.id.rawValue == id } }) ?? stack.top
            else { return [] }
            return try await client.routes().first { $0.route == screen.route.id }?.intents ?? []
        }
    }

    /// The IDs of the session's screens, top first (send --screen).
    static let screens = CompletionKind.custom { words, _, prefix in
        await names(startingWith: prefix, words: words, keepingOrder: true) { client, line throws(NavHostClientError) in
            try await client.stack(session: line.value(of: "--session")).stack.reversed().map(\.id.rawValue)
        }
    }

    /// The names of the loaded plugins (plugins reload, unload).
    static let loadedPlugins = CompletionKind.custom { words, _, prefix in
        await names(startingWith: prefix, words: words) { client, _ throws(NavHostClientError) in
            try await client.plugins().filter { $0.state == .loaded }.map(\.name)
        }
    }

    /// The names of the open sessions (--session, session close).
    static let sessions = CompletionKind.custom { words, _, prefix in
        await names(startingWith: prefix, words: words) { client, _ throws(NavHostClientError) in
            try await client.sessions()
        }
    }

    /// How long a completion waits for the daemon before it offers nothing.
    static let patience: Duration = .seconds(1)

    /// The names `ask` gets from the daemon that start with `prefix`, sorted unless `keepingOrder`; none when the
    /// daemon cannot be reached, refuses the call, or has not answered within ``patience``.
    private static func names(
        startingWith prefix: String,
        words: [String],
        keepingOrder: Bool = false,
        _ ask: @Sendable (NavHostClient, CompletedLine) async throws(NavHostClientError) -> [String]
    ) async -> [String] {
        let line = CompletedLine(words: words)
        guard let client = try? await NavHostClient.connect(socketPath: line.socketPath) else { return [] }
        // Closing the connection ends a call the daemon does not answer: it fails, and nothing is offered.
        let watchdog = Task {
            try await Task.sleep(for: patience)
            await client.close()
        }
        defer { watchdog.cancel() }
        let names = (try? await ask(client, line)) ?? []
        await client.close()
        let matching = names.filter { $0.hasPrefix(prefix) }
        return keepingOrder ? matching : matching.sorted()
    }
}

// MARK: - The command line being completed

/// The words of the command line the shell is completing, as the shell gives them (quotes and escapes unread), and
/// the values of the options that say which daemon and session to ask.
struct CompletedLine {
    let words: [String]

    /// The value given to `option` on the line, as `--option VALUE` or `--option=VALUE` (the last one counts, as for
    /// ArgumentParser), with one pair of surrounding quotes taken off; `nil` when the line does not give it. bash
    /// gives `--option=VALUE` as three words, `=` one of them (`=` is in its `COMP_WORDBREAKS`); zsh and fish as one.
    func value(of option: String) -> String? {
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
        return value.map(Self.unquoted)
    }

    /// The socket the line names (`--socket`, with a leading `~/` read as the home folder), else navctl's default.
    var socketPath: String {
        guard var path = value(of: "--socket") else { return NavHostClient.defaultSocketPath() }
        if path.hasPrefix("~/"), let home = getenv("HOME") {
            path = String(cString: home) + path.dropFirst()
        }
        return path
    }

    /// `word` without one pair of surrounding single or double quotes.
    private static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first else {
            return word
        }
        return String(word.dropFirst().dropLast())
    }
}
