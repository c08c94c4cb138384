/// A set of versions, as a plugin's manifest asks for a dependency: `">=1.0.0 <2.0.0"`.
///
/// The text is comparators separated by spaces; a version is in the range when it satisfies all of them:
///
/// | comparator | versions |
/// |---|---|
/// | `1.2.3` or `=1.2.3` | exactly 1.2.3 |
/// | `>1.2.3`, `>=1.2.3`, `<1.2.3`, `<=1.2.3` | above, at or above, below, at or below 1.2.3 |
/// | `^1.2.3` | `>=1.2.3 <2.0.0` (for `^0.2.3`: `<0.3.0`; for `^0.0.3`: `<0.0.4`) |
/// | `~1.2.3` | `>=1.2.3 <1.3.0` |
/// | `*` | any version |
///
/// As with npm, a pre-release version (`2.0.0-beta`) is only in a range that names a pre-release of the same
/// `MAJOR.MINOR.PATCH`: `>=1.0.0 <2.0.0` does not admit `2.0.0-beta` even though it precedes `2.0.0`.
/// There is no `||`: a dependency that accepts two disjoint ranges should say so in two plugins' versions.
public struct VersionRange: Sendable, Hashable, CustomStringConvertible {
    /// One condition on a version.
    public struct Comparator: Sendable, Hashable, CustomStringConvertible {
        /// How a version relates to the comparator's.
        public enum Operator: String, Sendable, Hashable, CaseIterable {
            case equal = "="
            case greater = ">"
            case greaterOrEqual = ">="
            case less = "<"
            case lessOrEqual = "<="
        }

        /// How a version must relate to ``version``.
        public var `operator`: Operator
        /// The version compared with.
        public var version: SemanticVersion

        /// The condition "`operator` `version`", like `>=1.0.0`.
        public init(_ operator: Operator, _ version: SemanticVersion) {
            self.operator = `operator`
            self.version = version
        }

        /// Whether `candidate` satisfies the comparator.
        public func isSatisfied(by candidate: SemanticVersion) -> Bool {
            switch `operator` {
            case .equal: candidate == version
            case .greater: candidate > version
            case .greaterOrEqual: candidate >= version
            case .less: candidate < version
            case .lessOrEqual: candidate <= version
            }
        }

        public var description: String { "\(`operator`.rawValue)\(version)" }
    }

    // MARK: Public Properties

    /// The conditions a version must all satisfy; none for `*`.
    public var comparators: [Comparator]

    /// The range as written, with single spaces.
    public let text: String

    public var description: String { text }

    /// Every version.
    public static let any = VersionRange(comparators: [], text: "*")

    // MARK: Initialization

    /// Parses a range; `nil` when `text` is not one (see the type's table).
    public init?(_ text: String) {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !tokens.isEmpty else { return nil }
        var comparators: [Comparator] = []
        for token in tokens {
            guard let expanded = Self.comparators(for: token) else { return nil }
            comparators += expanded
        }
        self.init(comparators: comparators, text: tokens.joined(separator: " "))
    }

    private init(comparators: [Comparator], text: String) {
        self.comparators = comparators
        self.text = text
    }

    // MARK: Public Functions

    /// Whether `version` is in the range.
    public func contains(_ version: SemanticVersion) -> Bool {
        guard comparators.allSatisfy({ $0.isSatisfied(by: version) }) else { return false }
        guard version.isPrerelease else { return true }
        return comparators.contains { $0.version.isPrerelease && $0.version.core == version.core }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

// MARK: - Codable

extension VersionRange: Codable {
    /// Decodes a range from its text, like `">=1.0.0 <2.0.0"`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let range = VersionRange(text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "\"\(text)\" is not a version range like \">=1.0.0 <2.0.0\""
                )
            )
        }
        self = range
    }

    /// Encodes the range as its text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

// MARK: - Private Functions

extension VersionRange {
    fileprivate static func comparators(for token: String) -> [Comparator]? {
        if token == "*" { return [] }
        for (prefix, op) in [
            (">=", Comparator.Operator.greaterOrEqual), ("<=", .lessOrEqual), (">", .greater), ("<", .less),
            ("=", .equal),
        ]
        where token.hasPrefix(prefix) {
            guard let version = SemanticVersion(String(token.dropFirst(prefix.count))) else { return nil }
            return [Comparator(op, version)]
        }
        if token.hasPrefix("^") {
            guard let version = SemanticVersion(String(token.dropFirst())) else { return nil }
            let upper =
                if version.major > 0 {
                    SemanticVersion(version.major + 1, 0, 0)
                } else if version.minor > 0 {
                    SemanticVersion(0, version.minor + 1, 0)
                } else {
                    SemanticVersion(0, 0, version.patch + 1)
                }
            return [Comparator(.greaterOrEqual, version), Comparator(.less, upper)]
        }
        if token.hasPrefix("~") {
            guard let version = SemanticVersion(String(token.dropFirst())) else { return nil }
            return [
                Comparator(.greaterOrEqual, version),
                Comparator(.less, SemanticVersion(version.major, version.minor + 1, 0)),
            ]
        }
        guard let version = SemanticVersion(token) else { return nil }
        return [Comparator(.equal, version)]
    }
}
