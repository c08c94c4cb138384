public import NavHostJSON
public import NavHostKit

/// How a screen came onto the stack.
public enum Presentation: String, Sendable, Hashable, Codable {
    /// Pushed by `navigate` (or the root, or a `replace`).
    case push
    /// Shown in the modal layer by `present`; `dismiss` removes it and everything above it.
    case modal
}

/// One screen as clients see it: its ID, its route, how it was shown, and its ViewModel's state as JSON.
public struct ScreenSnapshot: Sendable, Hashable, Codable {
    public var id: ScreenID
    public var route: RouteRequest
    public var presentation: Presentation
    public var state: JSONValue
    /// Set when the screen's last intent ran out of time, until an intent to it succeeds.
    public var error: String?

    public init(id: ScreenID, route: RouteRequest, presentation: Presentation, state: JSONValue, error: String? = nil) {
        self.id = id
        self.route = route
        self.presentation = presentation
        self.state = state
        self.error = error
    }

    private enum CodingKeys: String, CodingKey {
        case id, route, parameters, presentation, state, error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ScreenID.self, forKey: .id)
        route = RouteRequest(
            id: try container.decode(String.self, forKey: .route),
            parameters: try container.decodeIfPresent(JSONObject.self, forKey: .parameters) ?? JSONObject()
        )
        presentation = try container.decode(Presentation.self, forKey: .presentation)
        state = try container.decode(JSONValue.self, forKey: .state)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(route.id, forKey: .route)
        try container.encode(route.parameters, forKey: .parameters)
        try container.encode(presentation, forKey: .presentation)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

/// A whole session at one revision: every screen, root first.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    public var session: String
    public var revision: UInt64
    public var stack: [ScreenSnapshot]

    public init(session: String, revision: UInt64, stack: [ScreenSnapshot]) {
        self.session = session
        self.revision = revision
        self.stack = stack
    }

    /// The screen intents go to by default: the top of the stack.
    public var top: ScreenSnapshot? { stack.last }
}

// MARK: - Wire form

extension ScreenSnapshot {
    /// The wire form, exactly what the `Encodable` conformance produces, built without the `Codable` machinery: every
    /// intent's reply and every event carries screens, so this is on the hot path.
    public var jsonValue: JSONValue {
        var members: JSONObject = [
            "id": .string(id.rawValue),
            "route": .string(route.id),
            "parameters": .object(route.parameters),
            "presentation": .string(presentation.rawValue),
            "state": state,
        ]
        if let error { members["error"] = .string(error) }
        return .object(members)
    }
}

extension ScreenSnapshot {
    /// Appends the compact JSON text of ``jsonValue`` to `bytes`, member by member, without building that value: a
    /// `Send` whose intent changed the state writes the screen once (`Screen.serializedSnapshot`), and building the
    /// object, then destroying it, cost about 5,000 of the 16,100 instructions that took (callgrind).
    ///
    /// - Throws: ``JSONError/Code/nonFiniteNumber`` for a NaN or infinite number in the state or the parameters;
    ///   `bytes` then ends in part of the text.
    package func appendJSON(to bytes: inout [UInt8]) throws(JSONError) {
        bytes.append(contentsOf: #"{"id":"#.utf8)
        try JSONValue.string(id.rawValue).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","route":"#.utf8)
        try JSONValue.string(route.id).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","parameters":"#.utf8)
        try JSONValue.object(route.parameters).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","presentation":"#.utf8)
        try JSONValue.string(presentation.rawValue).appendSerializedBytes(to: &bytes)
        bytes.append(contentsOf: #","state":"#.utf8)
        try state.appendSerializedBytes(to: &bytes)
        if let error {
            bytes.append(contentsOf: #","error":"#.utf8)
            try JSONValue.string(error).appendSerializedBytes(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension SessionSnapshot {
    /// The wire form, exactly what the `Encodable` conformance produces (see ``ScreenSnapshot/jsonValue``).
    public var jsonValue: JSONValue {
        [
            "session": .string(session),
            "revision": jsonInteger(revision),
            "stack": .array(stack.map(\.jsonValue)),
        ]
    }
}

/// An unsigned integer as the JSON layer's encoder writes it: an integer up to `Int64.max`, a double above.
package func jsonInteger(_ value: UInt64) -> JSONValue {
    value <= UInt64(Int64.max) ? .int(Int64(value)) : .double(Double(value))
}
