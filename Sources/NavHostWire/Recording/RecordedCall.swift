public import NavHostJSON

/// One screen as a recording keeps it: everything a client sees of it but its ID, which a replay gives out afresh.
public struct RecordedScreen: Sendable, Hashable, Codable {
    public var route: String
    public var parameters: JSONObject
    public var presentation: Presentation
    public var state: JSONValue
    public var error: String?
    /// The place on the stack (0 is the root) of the screen whose ViewModel opened this one through its Router; `nil`
    /// for one a client opened. A replay gives it back to the base stack's screens, which it opens itself; it is not
    /// compared (``jsonValue`` leaves it out), since what a ViewModel opens shows in the routes anyway.
    public var openedBy: Int?
    /// Whether the screen's work (an `onAppear` load, an intent) was still under way when the stack was taken: a
    /// client that did not wait for it. Its ``state`` and ``error`` then depend on timing, and a replay, which lets
    /// every screen finish first, compares the rest of it only. Left out of the JSON form when `false`.
    public var busy: Bool

    public init(_ screen: ScreenSnapshot, openedBy: Int? = nil, busy: Bool = false) {
        route = screen.route.id
        parameters = screen.route.parameters
        presentation = screen.presentation
        state = screen.state
        error = screen.error
        self.openedBy = openedBy
        self.busy = busy
    }

    /// The screen as one JSON object, what a replay compares and diffs: everything but ``openedBy`` and ``busy``.
    public var jsonValue: JSONValue {
        var members: JSONObject = [
            "route": .string(route),
            "parameters": .object(parameters),
            "presentation": .string(presentation.rawValue),
            "state": state,
        ]
        if let error { members["error"] = .string(error) }
        return .object(members)
    }

    /// Whether `replayed` is this screen as a replay compares them: without ``state`` and ``error`` when this one was
    /// ``busy``.
    public func matches(_ replayed: RecordedScreen) -> Bool {
        guard busy else { return jsonValue == replayed.jsonValue }
        return shows(route: replayed.route, parameters: replayed.parameters, presentation: replayed.presentation)
    }

    /// Whether a screen of `route`, `parameters` and `presentation` is this one as a replay compares a screen
    /// recorded ``busy`` (``matches(_:)``), and as it waits for the stack to hold the recorded screens: a live screen
    /// is compared without a recorded form built for it.
    package func shows(route: String, parameters: JSONObject, presentation: Presentation) -> Bool {
        self.route == route && self.parameters == parameters && self.presentation == presentation
    }
}

// MARK: - Codable

extension RecordedScreen {
    private enum CodingKeys: String, CodingKey {
        case route, parameters, presentation, state, error, openedBy, busy
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        route = try container.decode(String.self, forKey: .route)
        parameters = try container.decode(JSONObject.self, forKey: .parameters)
        presentation = try container.decode(Presentation.self, forKey: .presentation)
        state = try container.decode(JSONValue.self, forKey: .state)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        openedBy = try container.decodeIfPresent(Int.self, forKey: .openedBy)
        busy = try container.decodeIfPresent(Bool.self, forKey: .busy) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(route, forKey: .route)
        try container.encode(parameters, forKey: .parameters)
        try container.encode(presentation, forKey: .presentation)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(openedBy, forKey: .openedBy)
        if busy { try container.encode(busy, forKey: .busy) }
    }
}

/// One call of a flight recording: what a client asked, how the session answered, and the stack it left.
public struct RecordedCall: Sendable, Hashable, Codable {
    /// The call.
    public var call: SessionCall
    /// The error the call was refused with (a ``NavigationErrorName``'s raw value, like `IntentNotFound`), or `nil` when it was done.
    public var error: String?
    /// The session's revision once the call was answered.
    public var revision: UInt64
    /// The stack once the call was answered, root first.
    public var stack: [RecordedScreen]
    /// The random numbers the session's features drew from this call until the next one, as 16 hex digits each;
    /// left out of the JSON form when there are none.
    public var random: [String]

    public init(
        call: SessionCall,
        error: String?,
        revision: UInt64,
        stack: [RecordedScreen],
        random: [String] = []
    ) {
        self.call = call
        self.error = error
        self.revision = revision
        self.stack = stack
        self.random = random
    }
}

// MARK: - Codable

extension RecordedCall {
    private enum CodingKeys: String, CodingKey {
        case call, error, revision, stack, random
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        call = try container.decode(SessionCall.self, forKey: .call)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        revision = try container.decode(UInt64.self, forKey: .revision)
        stack = try container.decode([RecordedScreen].self, forKey: .stack)
        random = try container.decodeIfPresent([String].self, forKey: .random) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(call, forKey: .call)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encode(revision, forKey: .revision)
        try container.encode(stack, forKey: .stack)
        if !random.isEmpty { try container.encode(random, forKey: .random) }
    }
}

// MARK: - Random numbers as text

extension UInt64 {
    /// Sixteen hex digits: JSON numbers cannot hold every 64-bit value exactly.
    package var recordedHex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    init?(recordedHex text: String) {
        guard text.utf8.count == 16 else { return nil }
        self.init(text, radix: 16)
    }
}
