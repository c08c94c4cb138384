import ArgumentParser
import NavHostClient

/// Completing a name the daemon knows while the shell completes a word: a route, an intent of the screen an intent
/// would go to, a screen of the stack, a loaded plugin, an open session.
///
/// The completion scripts (`navctl --generate-completion-script bash|zsh|fish`, installed by `make install`) run
/// navctl for such a word as the user presses Tab. navctl then connects to the socket the command line names
/// (`--socket`, else `$NAVHOST_SOCKET`, else the default), asks, and prints the names; the shell keeps those that
/// start with what is typed.
/// It prints nothing when the daemon cannot be reached or has not answered within ``patience``: completing never
/// prints an error into the command line, and never holds the shell for long.
enum NameCompletion {
    /// Route IDs (navigate, present, popto, replace, session open).
    static let routes = CompletionKind.custom { words, _, _ in
        await names(words: words) { client, _ throws(NavHostClientError) in
            try await client.routes().map(\.route)
        }
    }

    /// The intents of the screen `send` would go to: `--screen`'s, else the top screen's.
    static let intents = CompletionKind.custom { words, _, _ in
        await names(words: words) { client, line throws(NavHostClientError) in
            let stack = try await client.stack(session: line.value(of: "--session"))
            let screenID = line.value(of: "--screen")
            guard let screen = screenID.map({ id in stack.stack.first { $0.id.rawValue == id } }) ?? stack.top
            else { return [] }
            return try await client.routes().first { $0.route == screen.route.id }?.intents ?? []
        }
    }

    /// The IDs of the session's screens, top first (send --screen).
    static let screens = CompletionKind.custom { words, _, _ in
        await names(words: words, keepingOrder: true) { client, line throws(NavHostClientError) in
            try await client.stack(session: line.value(of: "--session")).stack.reversed().map(\.id.rawValue)
        }
    }

    /// The names of the loaded plugins (plugins reload, unload).
    static let loadedPlugins = CompletionKind.custom { words, _, _ in
        await names(words: words) { client, _ throws(NavHostClientError) in
            try await client.plugins().filter { $0.state == .loaded }.map(\.name)
        }
    }

    /// The names of the open sessions (--session, session close).
    static let sessions = CompletionKind.custom { words, _, _ in
        await names(words: words) { client, _ throws(NavHostClientError) in
            try await client.sessions()
        }
    }

    /// How long a completion waits for the daemon before it offers nothing, in seconds.
    static let patience: Double = 1

    /// The names `ask` gets from the daemon, sorted unless `keepingOrder`; none when the daemon cannot be reached,
    /// refuses the call, or has not answered within ``patience``.
    ///
    /// The shell filters them by the word being completed (ArgumentParser's `prefix` is the line's last word, which
    /// is not that word when the cursor is earlier in the line). Only names made of the characters the daemon allows
    /// in a name (letters, digits, `.`, `_`, `-`) are offered: bash's completion reads the list as shell words and
    /// expands them, and a server other than navhostd at the socket could answer with `$(…)`.
    private static func names(
        words: [String],
        keepingOrder: Bool = false,
        _ ask: @Sendable (NavHostClient, CompletedLine) async throws(NavHostClientError) -> [String]
    ) async -> [String] {
        let line = CompletedLine(words: words)
        guard let client = try? await NavHostClient.connect(socketPath: line.socketPath) else { return [] }
        // Closing the connection ends a call the daemon does not answer: it fails, and nothing is offered.
        let watchdog = Deadline(seconds: patience).watch { await client.close() }
        defer { watchdog?.cancel() }
        let names = ((try? await ask(client, line)) ?? []).filter(isPlainName)
        await client.close()
        return keepingOrder ? names : names.sorted()
    }

    /// Whether `name` is made only of letters, digits, `.`, `_` and `-`, and is not empty.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }
}
