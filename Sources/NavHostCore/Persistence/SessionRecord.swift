public import NavHostKit

/// What survives a crash of one session: its stack and each screen's restorable state.
///
/// A ViewModel's full state is not kept: it is rebuilt by the screen's `onAppear`. Only what a ViewModel opts into
/// through `RestorableViewModel` is kept, and handed back before `onAppear` on restart.
public struct SessionRecord: Sendable, Hashable, Codable {
    /// One screen of the stack.
    public struct Screen: Sendable, Hashable, Codable {
        public var id: ScreenID
        public var route: String
        public var parameters: JSONObject
        public var presentation: Presentation
        /// The ViewModel's restorable state, when it keeps one.
        public var restorable: JSONValue?

        public init(
            id: ScreenID,
            route: String,
            parameters: JSONObject,
            presentation: Presentation,
            restorable: JSONValue?
        ) {
            self.id = id
            self.route = route
            self.parameters = parameters
            self.presentation = presentation
            self.restorable = restorable
        }
    }

    /// The session's name.
    public var session: String
    /// The revision the record was taken at.
    public var revision: UInt64
    /// The number the next screen ID gets, so IDs are never reused across restarts.
    public var nextScreenNumber: Int
    /// The stack, root first.
    public var stack: [Screen]

    public init(session: String, revision: UInt64, nextScreenNumber: Int, stack: [Screen]) {
        self.session = session
        self.revision = revision
        self.nextScreenNumber = nextScreenNumber
        self.stack = stack
    }

    /// The same record without the revision: what decides whether anything durable changed.
    var durableContent: SessionRecord {
        var copy = self
        copy.revision = 0
        return copy
    }
}
