import NavHostClient
import NavHostJSON
import NavHostKit
import NavHostWire

/// The human-readable forms of stacks, screens and changes.
///
/// ```
/// session main, revision 4, 3 screens
///    s1  home.main
///    s2  products.list
/// => s3  products.detail {"productID":"p3"} (modal)
/// state of s3:
/// {
///   "status": "loaded",
///   …
/// }
/// ```
enum StackView {
    // MARK: - Stacks

    /// A session: its name and revision, its screens root first with the top one marked, and the top's state.
    static func lines(_ snapshot: SessionSnapshot) -> [String] {
        let count = snapshot.stack.count
        let header =
            "session \(snapshot.session), revision \(snapshot.revision), \(count) screen\(count == 1 ? "" : "s")"
        return [header] + lines(stack: snapshot.stack)
    }

    /// Screens, root first, with the top one marked, then the top's state.
    static func lines(stack: [ScreenSnapshot]) -> [String] {
        guard let top = stack.last else { return ["(no screens)"] }
        let width = stack.map(\.id.rawValue.count).max() ?? 0
        var lines = stack.map { screen in
            let marker = screen.id == top.id ? "=> " : "   "
            let id = screen.id.rawValue.padding(toLength: width)
            return "\(marker)\(id)  \(route(of: screen))"
        }
        lines += errorLines(top)
        lines.append("state of \(top.id):")
        lines += top.state.prettyPrintedLines()
        return lines
    }

    // MARK: - Screens

    /// A screen on one line: `s3 products.detail {"productID":"p3"} (modal)`.
    static func describe(_ screen: ScreenSnapshot) -> String {
        "\(screen.id) \(route(of: screen))"
    }

    /// A screen and its state: the screen's line, its error if it has one, then `state:` and the state,
    /// pretty-printed.
    static func lines(screen: ScreenSnapshot, prefix: String) -> [String] {
        ["\(prefix)\(describe(screen))"] + errorLines(screen) + ["state:"] + screen.state.prettyPrintedLines()
    }

    /// `error of s2: …` when the screen's last intent ran out of time, otherwise nothing.
    private static func errorLines(_ screen: ScreenSnapshot) -> [String] {
        screen.error.map { ["error of \(screen.id): \($0)"] } ?? []
    }

    /// A route, its parameters when it has any, and `(modal)` for a presented screen.
    private static func route(of screen: ScreenSnapshot) -> String {
        var text = screen.route.id
        if !screen.route.parameters.isEmpty { text += " \(JSONValue.object(screen.route.parameters))" }
        if screen.presentation == .modal { text += " (modal)" }
        return text
    }

    // MARK: - Changes

    /// What an event did, in a few words: `revision 5: pushed s4 products.detail {"productID":"p3"}`.
    static func describe(_ event: SessionEvent) -> String {
        switch event.change {
        case .pushed(let screen):
            let verb = screen.presentation == .modal ? "presented" : "pushed"
            return "revision \(event.revision): \(verb) \(describe(screen))"
        case .popped(let removed):
            return "revision \(event.revision): removed \(list(removed))"
        case .replaced(let stack):
            return
                "revision \(event.revision): replaced the stack with \(stack.map(\.route.id).joined(separator: ", "))"
        case .stateChanged(let id, _):
            return "revision \(event.revision): state of \(id) changed"
        case .errorChanged(let id, let error?):
            return "revision \(event.revision): \(id) has an error: \(error)"
        case .errorChanged(let id, nil):
            return "revision \(event.revision): \(id) has no error any more"
        }
    }

    /// Removed screens, topmost first: `s4, s3`, or `nothing` when none were.
    static func list(_ removed: [ScreenID]) -> String {
        removed.isEmpty ? "nothing" : removed.map(\.rawValue).joined(separator: ", ")
    }
}

// MARK: - Padding

extension String {
    /// The string, followed by spaces up to `length` characters.
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
