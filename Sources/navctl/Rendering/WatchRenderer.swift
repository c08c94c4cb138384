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
            Console.write(clearScreen + shown + "\n")
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
