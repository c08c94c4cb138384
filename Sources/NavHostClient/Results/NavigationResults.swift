public import NavHostCore
public import NavHostKit

// The outputs of io.navhost.Navigation's methods. Each is `Codable` in the method's wire form, so encoding one gives
// back the reply's parameters as the interface declares them.

// MARK: - PushResult

/// What `Navigate` and `Present` answer: the new screen and the revision its push made.
public struct PushResult: Sendable, Hashable, Codable {
    /// The session's revision after the push.
    public var revision: UInt64
    /// The new top screen, its ViewModel's state as it was right after the push.
    public var screen: ScreenSnapshot

    /// Creates a result, as a test double would.
    public init(revision: UInt64, screen: ScreenSnapshot) {
        self.revision = revision
        self.screen = screen
    }
}

// MARK: - PopResult

/// What `Pop`, `PopToRoot`, `PopTo` and `Dismiss` answer: the screens removed, topmost first.
public struct PopResult: Sendable, Hashable, Codable {
    /// The session's revision after the change; unchanged when nothing was removed.
    public var revision: UInt64
    /// The IDs of the screens removed, topmost first; empty when nothing was (a `popToRoot` at the root).
    public var removed: [ScreenID]

    /// Creates a result, as a test double would.
    public init(revision: UInt64, removed: [ScreenID]) {
        self.revision = revision
        self.removed = removed
    }
}

// MARK: - ReplaceResult

/// What `Replace` answers: the new stack.
public struct ReplaceResult: Sendable, Hashable, Codable {
    /// The session's revision after the replacement.
    public var revision: UInt64
    /// The new stack, root first.
    public var stack: [ScreenSnapshot]

    /// Creates a result, as a test double would.
    public init(revision: UInt64, stack: [ScreenSnapshot]) {
        self.revision = revision
        self.stack = stack
    }
}

// MARK: - SendResult

/// What `Send` answers once the screen's ViewModel has handled the intent.
public struct SendResult: Sendable, Hashable, Codable {
    /// The session's revision once the intent was handled.
    public var revision: UInt64
    /// The screen as it is then, or `nil` when handling the intent closed it.
    public var screen: ScreenSnapshot?

    /// Creates a result, as a test double would.
    public init(revision: UInt64, screen: ScreenSnapshot?) {
        self.revision = revision
        self.screen = screen
    }
}
