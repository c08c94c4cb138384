/// A client-side failure that is not an error reply: the connection is gone, or the service broke the protocol.
///
/// An error *reply* is a ``VarlinkError``. The `code` says what went wrong; new codes may be added, so switch over
/// it with a `default`.
public struct VarlinkClientError: Error, Sendable, Hashable {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case connectionClosed
            case protocolViolation
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The connection closed before the reply arrived.
        public static let connectionClosed = Code(.connectionClosed)
        /// The service sent something that is not a valid reply; the connection was closed.
        public static let protocolViolation = Code(.protocolViolation)

        public var description: String {
            switch base {
            case .connectionClosed: return "connectionClosed"
            case .protocolViolation: return "protocolViolation"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, in words a person can act on.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}

// MARK: - CustomStringConvertible

extension VarlinkClientError: CustomStringConvertible {
    public var description: String { "Varlink client \(code): \(message)" }
}
