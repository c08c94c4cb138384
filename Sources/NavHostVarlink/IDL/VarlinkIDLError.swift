/// An interface definition that does not parse, or does not hold together.
///
/// The `code` says what kind of problem it is; new codes may be added, so switch over it with a `default`.
public struct VarlinkIDLError: Error, Sendable, Hashable {
    /// The kind of problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case syntax
            case invalidName
            case duplicateName
            case unknownType
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The text does not follow the grammar.
        public static let syntax = Code(.syntax)
        /// A name breaks the spelling rules (interface, member or field name).
        public static let invalidName = Code(.invalidName)
        /// Two members, or two fields of one structure, share a name.
        public static let duplicateName = Code(.duplicateName)
        /// A type name refers to no `type` declared in the interface.
        public static let unknownType = Code(.unknownType)

        public var description: String {
            switch base {
            case .syntax: return "syntax"
            case .invalidName: return "invalidName"
            case .duplicateName: return "duplicateName"
            case .unknownType: return "unknownType"
            }
        }
    }

    /// The kind of problem.
    public var code: Code
    /// What is wrong, in words a person can act on.
    public var message: String
    /// The 1-based line of the problem.
    public var line: Int
    /// The 1-based column (in bytes) of the problem.
    public var column: Int

    /// Creates an error.
    public init(code: Code, message: String, line: Int, column: Int) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
    }
}

// MARK: - CustomStringConvertible

extension VarlinkIDLError: CustomStringConvertible {
    public var description: String {
        "Varlink IDL \(code) at \(line):\(column): \(message)"
    }
}
