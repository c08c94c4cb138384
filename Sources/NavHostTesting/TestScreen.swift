import NavHostCore
public import NavHostKit
package import NavHostWire

/// One screen of a ``FeatureTestHost``'s stack, as a front end sees it.
public struct TestScreen: Sendable, Hashable {
    /// How a screen is shown: pushed on the stack, or in the modal layer above it.
    public enum Presentation: String, Sendable, Hashable {
        case push, modal
    }

    /// The screen's ID, stable for as long as it is on the stack.
    public var id: ScreenID
    /// The route it shows, with its parameters.
    public var route: RouteRequest
    /// Pushed or modal.
    public var presentation: Presentation
    /// The ViewModel's state, as JSON.
    public var state: JSONValue
    /// The error an intent left on the screen (a time limit that ran out), until the next intent succeeds.
    public var error: String?

    public init(
        id: ScreenID,
        route: RouteRequest,
        presentation: Presentation = .push,
        state: JSONValue,
        error: String? = nil
    ) {
        self.id = id
        self.route = route
        self.presentation = presentation
        self.state = state
        self.error = error
    }

    package init(_ snapshot: ScreenSnapshot) {
        self.init(
            id: snapshot.id,
            route: snapshot.route,
            presentation: snapshot.presentation == .modal ? .modal : .push,
            state: snapshot.state,
            error: snapshot.error
        )
    }
}

extension FeatureTestHost {
    /// One change of the session under test: its revision and what kind of change it was.
    public struct Event: Sendable, Hashable {
        /// What changed.
        public enum Kind: String, Sendable, Hashable {
            case pushed, popped, replaced, stateChanged, errorChanged
        }

        /// The session's revision after the change.
        public var revision: UInt64
        /// What changed.
        public var kind: Kind
        /// The screen the change is about: the pushed one, or the one whose state or error changed; `nil` for a
        /// pop or a replacement.
        public var screen: ScreenID?

        public init(revision: UInt64, kind: Kind, screen: ScreenID? = nil) {
            self.revision = revision
            self.kind = kind
            self.screen = screen
        }

        package init(_ event: SessionEvent) {
            switch event.change {
            case .pushed(let pushed): self.init(revision: event.revision, kind: .pushed, screen: pushed.id)
            case .popped: self.init(revision: event.revision, kind: .popped)
            case .replaced: self.init(revision: event.revision, kind: .replaced)
            case .stateChanged(let id, _): self.init(revision: event.revision, kind: .stateChanged, screen: id)
            case .errorChanged(let id, _): self.init(revision: event.revision, kind: .errorChanged, screen: id)
            }
        }
    }
}
