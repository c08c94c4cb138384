/// The state of something a screen loads: the seeds' `LoadingState`.
///
/// On the wire it is an object whose `status` names the case:
///
/// | case | JSON |
/// |---|---|
/// | `.idle` | `{"status":"idle"}` |
/// | `.loading` | `{"status":"loading"}` |
/// | `.loaded(value)` | `{"status":"loaded","value":…}` |
/// | `.error(message)` | `{"status":"error","message":"…"}` |
public enum LoadingState<Value: Equatable & Sendable>: Equatable, Sendable {
    case idle
    case loading
    case loaded(Value)
    case error(String)

    /// The loaded value, or `nil` in any other state.
    public var value: Value? {
        if case .loaded(let value) = self { return value }
        return nil
    }

    /// Whether a load is under way.
    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    /// Whether `lhs` and `rhs` are the same case with equal values.
    ///
    /// Written out, though the synthesized one would compare the same: that one switches over the pair
    /// `(lhs, rhs)`, which, `Value` being known only at run time here, asks the runtime for the tuple's metadata and
    /// copies both states into it on every call (an `@Observable` ViewModel compares its state on every assignment,
    /// so once per intent). This one looks at one side, then the other.
    ///
    /// Always inlined, here into the `Equatable` witness the ViewModel's setter calls: the witness is handed the
    /// metadata of `LoadingState<Value>`, where this function, handed only `Value`'s, asked the runtime's cache for it
    /// on every call (about 330 instructions, more or less by the cache's layout). The symbol stays for other callers.
    @inline(__always)
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch lhs {
        case .idle:
            if case .idle = rhs { return true }
        case .loading:
            if case .loading = rhs { return true }
        case .loaded(let value):
            if case .loaded(let other) = rhs { return value == other }
        case .error(let message):
            if case .error(let other) = rhs { return message == other }
        }
        return false
    }
}

// MARK: - Codable

private enum LoadingStateCodingKeys: String, CodingKey {
    case status, value, message
}

extension LoadingState: Encodable where Value: Encodable {

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LoadingStateCodingKeys.self)
        switch self {
        case .idle:
            try container.encode("idle", forKey: .status)
        case .loading:
            try container.encode("loading", forKey: .status)
        case .loaded(let value):
            try container.encode("loaded", forKey: .status)
            try container.encode(value, forKey: .value)
        case .error(let message):
            try container.encode("error", forKey: .status)
            try container.encode(message, forKey: .message)
        }
    }
}

extension LoadingState: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LoadingStateCodingKeys.self)
        switch try container.decode(String.self, forKey: .status) {
        case "idle": self = .idle
        case "loading": self = .loading
        case "loaded": self = .loaded(try container.decode(Value.self, forKey: .value))
        case "error": self = .error(try container.decode(String.self, forKey: .message))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .status,
                in: container,
                debugDescription: "unknown status \"\(other)\""
            )
        }
    }
}
