/// An error reading or writing JSON: what went wrong and, for input, where.
///
/// The `code` says what kind of failure it was; new codes may be added, so switch over it with a `default`.
public struct JSONError: Error, Sendable, Hashable {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case syntax
            case invalidUTF8
            case depthLimitExceeded
            case incomplete
            case trailingBytes
            case nonFiniteNumber
            case typeMismatch
            case keyNotFound
            case valueNotFound
            case dataCorrupted
            case unknownMember
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The input is not JSON.
        public static let syntax = Code(.syntax)
        /// A string in the input is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// Arrays and objects nest deeper than the parser allows.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// The input ended before the JSON value did.
        public static let incomplete = Code(.incomplete)
        /// Something other than white space follows a complete value.
        public static let trailingBytes = Code(.trailingBytes)
        /// A `Double` that is NaN or infinite has no JSON form.
        public static let nonFiniteNumber = Code(.nonFiniteNumber)
        /// Decoding found a value of another JSON type than the Swift type needs.
        public static let typeMismatch = Code(.typeMismatch)
        /// Decoding needed an object member that is absent.
        public static let keyNotFound = Code(.keyNotFound)
        /// Decoding needed a value and found `null` or nothing.
        public static let valueNotFound = Code(.valueNotFound)
        /// Decoding found a value of the right type that the Swift type refuses.
        public static let dataCorrupted = Code(.dataCorrupted)
        /// Decoding found an object member that the Swift type does not read: an intent's argument or a route's
        /// parameter it does not declare (``JSONValueDecoder`` checks this for those only).
        public static let unknownMember = Code(.unknownMember)

        public var description: String {
            switch base {
            case .syntax: return "syntax"
            case .invalidUTF8: return "invalidUTF8"
            case .depthLimitExceeded: return "depthLimitExceeded"
            case .incomplete: return "incomplete"
            case .trailingBytes: return "trailingBytes"
            case .nonFiniteNumber: return "nonFiniteNumber"
            case .typeMismatch: return "typeMismatch"
            case .keyNotFound: return "keyNotFound"
            case .valueNotFound: return "valueNotFound"
            case .dataCorrupted: return "dataCorrupted"
            case .unknownMember: return "unknownMember"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// What failed, in words a person can act on.
    public var message: String
    /// For parse errors, the byte offset in the input where the problem was found.
    public var offset: Int?
    /// For decoding errors, the path to the offending value, like `arguments.items[2].name`.
    public var path: String?

    public init(code: Code, message: String, offset: Int? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.path = path
    }
}

// MARK: - CustomStringConvertible

extension JSONError: CustomStringConvertible {
    public var description: String {
        var text = "JSON \(code): \(message)"
        if let offset { text += " (at byte \(offset))" }
        if let path, !path.isEmpty { text += " (at \(path))" }
        return text
    }
}
