/// A message that breaks the Varlink wire protocol; the connection it came on is closed.
///
/// The UAPI Varlink specification has no reply for a message that is not a well-formed call (or, on the client
/// side, a well-formed reply): the only safe answer is to close the connection. The `code` says what was wrong; new
/// codes may be added, so switch over it with a `default`.
public struct VarlinkProtocolError: Error, Sendable, Hashable {
    /// The kind of violation.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case messageTooLarge
            case truncatedMessage
            case partialMessageTimeout
            case sendTimeout
            case unfinishedMessagesOverLimit
            case invalidJSON
            case notAnObject
            case missingMethod
            case invalidHeaderField
            case unknownHeaderField
            case conflictingFlags
            case unexpectedReply
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A message grew past the size limit before its terminating NUL byte arrived.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// The stream ended in the middle of a message.
        public static let truncatedMessage = Code(.truncatedMessage)
        /// A message was started but not finished within the partial-message timeout.
        public static let partialMessageTimeout = Code(.partialMessageTimeout)
        /// The client stopped reading: replies waited for it longer than the send timeout. Not a malformed message,
        /// but the connection is closed the same way.
        public static let sendTimeout = Code(.sendTimeout)
        /// The server's connections together held more bytes of unfinished messages than its limit
        /// (``VarlinkServerConfiguration/maxUnfinishedBytes``), and this connection held the most. Not a malformed
        /// message either, but the connection is closed the same way.
        public static let unfinishedMessagesOverLimit = Code(.unfinishedMessagesOverLimit)
        /// The message is not JSON, or nests deeper than allowed.
        public static let invalidJSON = Code(.invalidJSON)
        /// The message is JSON, but not an object.
        public static let notAnObject = Code(.notAnObject)
        /// A call has no `method` member.
        public static let missingMethod = Code(.missingMethod)
        /// A member of the message has the wrong JSON type: `method` or `error` not a string, a flag not a boolean,
        /// `parameters` not an object.
        public static let invalidHeaderField = Code(.invalidHeaderField)
        /// The message has a member the specification does not define and that is not a vendor extension.
        public static let unknownHeaderField = Code(.unknownHeaderField)
        /// A call sets more than one of `oneway`, `more` and `upgrade`.
        public static let conflictingFlags = Code(.conflictingFlags)
        /// A reply arrived that no call asked for, or `continues` on a reply to a call without `more`.
        public static let unexpectedReply = Code(.unexpectedReply)

        public var description: String {
            switch base {
            case .messageTooLarge: return "messageTooLarge"
            case .truncatedMessage: return "truncatedMessage"
            case .partialMessageTimeout: return "partialMessageTimeout"
            case .sendTimeout: return "sendTimeout"
            case .unfinishedMessagesOverLimit: return "unfinishedMessagesOverLimit"
            case .invalidJSON: return "invalidJSON"
            case .notAnObject: return "notAnObject"
            case .missingMethod: return "missingMethod"
            case .invalidHeaderField: return "invalidHeaderField"
            case .unknownHeaderField: return "unknownHeaderField"
            case .conflictingFlags: return "conflictingFlags"
            case .unexpectedReply: return "unexpectedReply"
            }
        }
    }

    /// The kind of violation.
    public var code: Code
    /// What was wrong with the message, in words a person can act on.
    public var message: String

    /// Creates a protocol error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}

// MARK: - CustomStringConvertible

extension VarlinkProtocolError: CustomStringConvertible {
    public var description: String {
        "Varlink protocol violation (\(code)): \(message)"
    }
}
