import NavHostClient
import NavHostWire

/// Prints a watch's updates as they arrive, keeping a local copy of the session to show its top screen.
struct WatchRenderer: UpdateRenderer {
    /// How updates are shown.
    enum Mode: Sendable {
        /// Each update as one JSON line, in its wire form.
        case json
        /// The whole view redrawn at every update (a terminal).
        case redraw
        /// A line per update saying what changed, then the top screen and its state (a pipe or a file).
        case lines
    }

    private let mode: Mode
    private var session: SessionSnapshot
    private var printedBefore = false

    init(mode: Mode, session: String?) {
        self.mode = mode
        self.session = SessionSnapshot(session: session ?? "main", revision: 0, stack: [])
    }

    /// Applies `update` to the local copy of the session and prints it.
    mutating func render(_ update: NavHostWatch.Update) throws(NavHostClientError) {
        session.apply(update)
        switch mode {
        case .json:
            switch update {
            case .snapshot(let snapshot, coalesced: true):
                try JSONOutput.print(["snapshot": snapshot, "coalesced": true])
            case .snapshot(let snapshot, coalesced: false): try JSONOutput.print(["snapshot": snapshot])
            case .event(let event): try JSONOutput.print(["event": event])
            }
        case .redraw:
            let clearScreen = "\u{1B}[H\u{1B}[2J"
            let lines =
                ["watching session \(session.session) (Ctrl-C to stop); last change: \(Self.describe(update))", ""]
                + StackView.lines(session)
            let shown = Console.escapingControlCharacters(lines.joined(separator: "\n"), keepingLineBreaks: true)
            var rows = shown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if let size = Console.terminalSize { rows = Self.fitting(rows, rows: size.rows, columns: size.columns) }
            Console.write(clearScreen + rows.joined(separator: "\n") + "\n")
        case .lines:
            if printedBefore { Console.print("") }
            Console.print(Self.describe(update))
            switch update {
            case .snapshot:
                StackView.lines(session).forEach(Console.print)
            case .event:
                if let top = session.top {
                    StackView.lines(screen: top, prefix: "top: ").forEach(Console.print)
                } else {
                    Console.print("(no screens)")
                }
            }
        }
        printedBefore = true
    }

    /// `lines` as a terminal of `rows` rows and `columns` columns shows them without scrolling the first off: as many
    /// as fit, counting the rows a long line wraps to, then one saying how many more there are. The last row stays
    /// free for the cursor.
    ///
    /// A line's width is its count of Unicode scalars, a tab one: close enough for a screen's state, which is
    /// mostly ASCII; a line of wide characters may wrap to more rows than counted.
    static func fitting(_ lines: [String], rows: Int, columns: Int) -> [String] {
        let available = rows - 1
        func height(_ line: String) -> Int { max(1, (line.unicodeScalars.count + columns - 1) / columns) }
        guard lines.reduce(0, { $0 + height($1) }) > available else { return lines }
        var shown: [String] = []
        var used = 0
        for line in lines {
            guard used + height(line) <= available - 1 else { break }
            shown.append(line)
            used += height(line)
        }
        let more = "… \(lines.count - shown.count) more lines; --plain prints them all"
        return shown + [String(more.unicodeScalars.prefix(columns))]
    }

    /// What an update is, in a few words.
    private static func describe(_ update: NavHostWatch.Update) -> String {
        switch update {
        case .snapshot(let snapshot, coalesced: false):
            return "revision \(snapshot.revision): snapshot"
        case .snapshot(let snapshot, coalesced: true):
            return "revision \(snapshot.revision): snapshot (coalesced: navctl fell behind, some events were skipped)"
        case .event(let event):
            return StackView.describe(event)
        }
    }
}
