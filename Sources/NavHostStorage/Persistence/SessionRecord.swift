public import NavHostKit
public import NavHostWire

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
        /// The screen below it whose ViewModel opened it through its Router; `nil` for one a client opened (and in a
        /// record written before the daemon kept it). What lets that ViewModel still close it after a restart.
        public var openedBy: ScreenID?

        public init(
            id: ScreenID,
            route: String,
            parameters: JSONObject,
            presentation: Presentation,
            restorable: JSONValue?,
            openedBy: ScreenID? = nil
        ) {
            self.id = id
            self.route = route
            self.parameters = parameters
            self.presentation = presentation
            self.restorable = restorable
            self.openedBy = openedBy
        }
    }

    /// The session's name.
    public var session: String
    /// The revision the record was taken at.
    public var revision: UInt64
    /// A revision above every revision the session may have given out before the next record is written.
    ///
    /// Changes that keep nothing durable (most ViewModel state changes) are not written, so after a crash the
    /// file's `revision` may be behind what clients saw. Revisions are reserved in blocks: the record names the end
    /// of the block after the current one, which changes (and so gets written) once per block. A restored session
    /// continues from here, so revisions only ever grow.
    public var reservedRevision: UInt64
    /// The number the next screen ID gets, so IDs are never reused across restarts.
    public var nextScreenNumber: Int
    /// The stack, root first.
    public var stack: [Screen]

    /// How many revisions one reservation covers.
    public static let revisionBlock: UInt64 = 1024

    public init(session: String, revision: UInt64, nextScreenNumber: Int, stack: [Screen]) {
        self.session = session
        self.revision = revision
        self.reservedRevision = (revision / Self.revisionBlock + 2) * Self.revisionBlock
        self.nextScreenNumber = nextScreenNumber
        self.stack = stack
    }

    /// The same record without the revision (the reservation stays): what decides whether anything durable changed.
    var durableContent: SessionRecord {
        var copy = self
        copy.revision = 0
        return copy
    }
}

// MARK: - JSON

extension SessionRecord {
    /// Appends the record's compact JSON text to `bytes`: the text of what `JSONValueEncoder` makes of it
    /// (`SessionRecordJSONTests` holds them equal), written without building that value first. Every durable write
    /// serializes one; through `Encodable` that took 35,000 instructions for a two-screen stack, and through a
    /// `JSONValue` built by hand 21,000.
    func appendJSON(to bytes: inout [UInt8]) throws(JSONError) {
        bytes.append(contentsOf: #"{"session":"#.utf8)
        try JSONValue.string(session).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","revision":"#.utf8)
        try jsonInteger(revision).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","reservedRevision":"#.utf8)
        try jsonInteger(reservedRevision).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","nextScreenNumber":"#.utf8)
        try JSONValue.int(Int64(nextScreenNumber)).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","stack":["#.utf8)
        for (index, screen) in stack.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try screen.appendJSON(to: &bytes)
        }
        bytes.append(contentsOf: "]}".utf8)
    }
}

extension SessionRecord.Screen {
    /// Appends the screen's compact JSON text, as `JSONValueEncoder` makes it: `restorable` and `openedBy` left out
    /// when there are none.
    fileprivate func appendJSON(to bytes: inout [UInt8]) throws(JSONError) {
        bytes.append(contentsOf: #"{"id":"#.utf8)
        try JSONValue.string(id.rawValue).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","route":"#.utf8)
        try JSONValue.string(route).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","parameters":"#.utf8)
        try JSONValue.object(parameters).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","presentation":"#.utf8)
        try JSONValue.string(presentation.rawValue).appendSerializedBytes(to: &bytes)
        if let restorable {
            bytes.append(contentsOf: #","restorable":"#.utf8)
            try restorable.appendSerializedBytes(to: &bytes)
        }
        if let openedBy {
            bytes.append(contentsOf: #","openedBy":"#.utf8)
            try JSONValue.string(openedBy.rawValue).appendSerializedBytes(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
