/// Why a plugin manifest was refused, naming the field at fault.
///
/// `code` says what kind of problem it was; new codes may be added, so switch over it with a `default`.
public struct PluginManifestError: Error, Sendable, Hashable {
    /// The kind of problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case notJSON
            case missingField
            case unknownField
            case invalidField
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file is not one JSON value.
        public static let notJSON = Code(.notJSON)
        /// A required field is absent or `null`.
        public static let missingField = Code(.missingField)
        /// A field the format does not have, often a misspelt one.
        public static let unknownField = Code(.unknownField)
        /// A field of the wrong type, or whose value the format refuses.
        public static let invalidField = Code(.invalidField)

        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public var code: Code
    /// The path of the field at fault, like `routes[1].intents`; empty for the whole document.
    public var field: String
    /// What is wrong and what would be right, for a person.
    public var message: String

    /// Creates an error of kind `code` about `field` (a path like `routes[1].route`, empty for the whole file).
    public init(_ code: Code, field: String, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }
}

// MARK: - CustomStringConvertible

extension PluginManifestError: CustomStringConvertible {
    public var description: String {
        field.isEmpty ? "\(code): \(message)" : "\(code) at \(field): \(message)"
    }
}
