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

    /// Whether `other` holds what this record holds, the revision aside (`durableContent == other.durableContent`,
    /// without the copies).
    package func hasDurableContent(of other: SessionRecord) -> Bool {
        hasBookkeeping(of: other) && Self.isSameStack(stack, other.stack)
    }

    /// Whether `other` holds what this record holds apart from its stack and its revision: its session, screen
    /// numbers and revision reservation.
    package func hasBookkeeping(of other: SessionRecord) -> Bool {
        reservedRevision == other.reservedRevision && nextScreenNumber == other.nextScreenNumber
            && session == other.session
    }

    /// Whether `stack` and `other` are equal (`==`), compared from the top screen down, and each screen's identity
    /// before its values: a change is most often the top screen's restorable state, which `==` reached last, after
    /// every screen below, their parameters and states compared member by member. The persistence asks this several
    /// times per change (about 27,000 instructions per state-changing `Send` through `==`).
    package static func isSameStack(_ stack: [Screen], _ other: [Screen]) -> Bool {
        guard stack.count == other.count else { return false }
        // One storage: equal, as `==` finds first too (the persistence shares a stack found equal, for the next look).
        let storage = stack.withUnsafeBufferPointer { $0.baseAddress }
        if storage != nil, storage == other.withUnsafeBufferPointer({ $0.baseAddress }) { return true }
        // Through pointers: an element read from an array or a buffer is copied out of it (a resilient `JSONValue`
        // in each screen makes that calls through the runtime's witnesses), one a pointer addresses is not.
        return stack.withUnsafeBufferPointer { screens in
            other.withUnsafeBufferPointer { others in
                guard let screens = screens.baseAddress, let others = others.baseAddress else { return true }
                for index in (0..<stack.count).reversed()
                where !Screen.isSame(screens + index, others + index) {
                    return false
                }
                return true
            }
        }
    }
}

extension SessionRecord {
    /// Compares stacks as ``SessionRecord/isSameStack(_:_:)`` does, and remembers the last two it found different:
    /// asked about the same two again, it answers at once. The same two means the same storage, which an array held
    /// here keeps to itself: a stack stored elsewhere is copied before it changes, and no other array is given it.
    package struct DifferentStacks: Sendable {
        private var last: (stack: [Screen], other: [Screen])?

        package init() {}

        /// Whether `stack` and `other` are equal.
        package mutating func isSame(_ stack: [Screen], _ other: [Screen]) -> Bool {
            if let last, Self.shareStorage(last.stack, stack), Self.shareStorage(last.other, other) { return false }
            guard SessionRecord.isSameStack(stack, other) else {
                last = (stack, other)
                return false
            }
            return true
        }

        /// Whether `stack` and `other` are one array's storage: equal, whatever they hold.
        private static func shareStorage(_ stack: [Screen], _ other: [Screen]) -> Bool {
            guard stack.count == other.count else { return false }
            let storage = stack.withUnsafeBufferPointer { $0.baseAddress }
            return storage == other.withUnsafeBufferPointer { $0.baseAddress }
        }
    }
}

extension SessionRecord.Screen {
    /// Whether the screens `screen` and `other` point to are equal (`==`), their identity and route compared before
    /// their states and parameters, which take longer and differ less often.
    fileprivate static func isSame(_ screen: UnsafePointer<Self>, _ other: UnsafePointer<Self>) -> Bool {
        guard
            screen.pointee.id == other.pointee.id, screen.pointee.route == other.pointee.route,
            screen.pointee.presentation == other.pointee.presentation,
            screen.pointee.openedBy == other.pointee.openedBy
        else { return false }
        // Unwrapped one at a time: `==` of two optionals copies both into a pair first.
        if let restorable = screen.pointee.restorable {
            guard let otherRestorable = other.pointee.restorable, restorable == otherRestorable else { return false }
        } else if other.pointee.restorable != nil {
            return false
        }
        return screen.pointee.parameters == other.pointee.parameters
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
