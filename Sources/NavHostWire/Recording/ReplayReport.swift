public import NavHostJSON

/// What replaying a recording found: "identical", or the first call whose outcome or stack differs.
public struct ReplayReport: Sendable, Hashable {
    /// The first call of a replay whose result is not the recorded one.
    public struct Difference: Sendable, Hashable {
        /// The call's place in the recording, counting from 1; 0 for the base stack, before any call.
        public var call: Int
        /// The call's method; `nil` for the base stack.
        public var method: String?
        /// The revision the recorded session was at after the call.
        public var revision: UInt64
        /// The revision the replaying session is at after it.
        public var replayedRevision: UInt64
        /// The recorded refusal and the replayed one (error names like `RouteNotFound`; `nil` for done).
        public var recordedError: String?
        public var replayedError: String?
        /// The recorded stack and the replayed one, keyed by position (`{"0": {"route": …, "state": …}, …}`), without
        /// screen IDs.
        public var recorded: JSONValue
        public var replayed: JSONValue
        /// The RFC 7386 merge patch that turns the recorded stack into the replayed one; `nil` when only the outcome
        /// differs.
        public var patch: JSONValue?
    }

    /// The session the replay ran in.
    public var session: String
    /// How many of the recording's calls were made.
    public var calls: Int
    /// The recorded revision the replay reached: that of the last call made, or the base's.
    public var revision: UInt64
    /// The first difference, or `nil` when every result matched: "identical".
    public var difference: Difference?
    /// What may make the replay differ for reasons other than the features' code: a plugin missing or in another
    /// version, random numbers drawn that the recording does not hold; and a reload that declared the session's name
    /// while it ran.
    public var warnings: [String]
    /// Whether the session is left open: `to` was given, for inspection, or a reload declared its name meanwhile.
    public var leftOpen: Bool

    public var isIdentical: Bool { difference == nil }

    public init(
        session: String,
        calls: Int,
        revision: UInt64,
        difference: Difference?,
        warnings: [String],
        leftOpen: Bool
    ) {
        self.session = session
        self.calls = calls
        self.revision = revision
        self.difference = difference
        self.warnings = warnings
        self.leftOpen = leftOpen
    }
}

// MARK: - Comparing

extension ReplayReport.Difference {
    /// The difference between a call's recorded result and its replayed one; `nil` when they are the same outcome
    /// and the same stack (revisions may differ: a replay numbers its own).
    ///
    /// - Parameters:
    ///   - call: The call's place in the recording, counting from 1; 0 for the base stack.
    ///   - method: The call's method; `nil` for the base stack.
    public init?(
        call: Int,
        method: String?,
        recorded: (revision: UInt64, error: String?, stack: [RecordedScreen]),
        replayed: (revision: UInt64, error: String?, stack: [RecordedScreen])
    ) {
        guard recorded.error != replayed.error || !Self.same(recorded.stack, replayed.stack) else { return nil }
        self.call = call
        self.method = method
        revision = recorded.revision
        replayedRevision = replayed.revision
        recordedError = recorded.error
        replayedError = replayed.error
        // What was not compared is not shown either: the state and error of the screens recorded busy.
        let busy = Set(recorded.stack.indices.filter { recorded.stack[$0].busy })
        self.recorded = Self.comparable(recorded.stack, leavingOutStateAt: busy)
        self.replayed = Self.comparable(replayed.stack, leavingOutStateAt: busy)
        patch = JSONMergePatch.difference(from: self.recorded, to: self.replayed)
    }

    /// Whether two stacks hold the same screens as a replay compares them (``RecordedScreen/matches(_:)``): who opened
    /// which is not compared, so a recording made before it was recorded replays as identical, nor the state of a
    /// screen recorded busy.
    private static func same(_ recorded: [RecordedScreen], _ replayed: [RecordedScreen]) -> Bool {
        recorded.count == replayed.count && zip(recorded, replayed).allSatisfy { $0.matches($1) }
    }

    /// A stack as an object keyed by position (`{"0": {…}, "1": {…}}`), so that its merge patch names the screens
    /// that differ and only what differs in them; without `state` and `error` at the positions `busy`.
    private static func comparable(_ stack: [RecordedScreen], leavingOutStateAt busy: Set<Int>) -> JSONValue {
        var screens = JSONObject()
        for (position, screen) in stack.enumerated() {
            var shown = screen.jsonValue
            if busy.contains(position), case .object(var members) = shown {
                members["state"] = nil
                members["error"] = nil
                shown = .object(members)
            }
            screens[String(position)] = shown
        }
        return JSONMergePatch.canonical(.object(screens))
    }
}

// MARK: - Codable

extension ReplayReport: Codable {
    private enum CodingKeys: String, CodingKey {
        case session, calls, revision, identical, warnings, leftOpen, difference
    }

    /// The wire form, as `Replay` answers: the members above, and `identical`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(session, forKey: .session)
        try container.encode(calls, forKey: .calls)
        try container.encode(revision, forKey: .revision)
        try container.encode(isIdentical, forKey: .identical)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(leftOpen, forKey: .leftOpen)
        try container.encodeIfPresent(difference, forKey: .difference)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        session = try container.decode(String.self, forKey: .session)
        calls = try container.decode(Int.self, forKey: .calls)
        revision = try container.decode(UInt64.self, forKey: .revision)
        warnings = try container.decode([String].self, forKey: .warnings)
        leftOpen = try container.decode(Bool.self, forKey: .leftOpen)
        difference = try container.decodeIfPresent(Difference.self, forKey: .difference)
    }
}

extension ReplayReport.Difference: Codable {}
