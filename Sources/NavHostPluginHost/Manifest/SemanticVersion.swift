/// A version number as Semantic Versioning 2.0.0 writes it: `MAJOR.MINOR.PATCH`, an optional pre-release
/// (`-beta.2`) and optional build metadata (`+linux.x86_64`).
///
/// Versions order by precedence (semver.org §11): numbers first, then a pre-release comes before the release it
/// precedes (`1.0.0-beta < 1.0.0`), its identifiers compared one by one (numeric ones as numbers, and below
/// alphanumeric ones). Build metadata does not count: `1.0.0+a == 1.0.0+b`.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    // MARK: Public Properties

    /// Raised for changes that break compatibility.
    public var major: Int
    /// Raised for additions that keep compatibility.
    public var minor: Int
    /// Raised for fixes.
    public var patch: Int
    /// The dot-separated pre-release identifiers, like `["beta", "2"]`; empty for a release.
    public var prerelease: [String]
    /// The dot-separated build metadata identifiers; ignored when comparing.
    public var buildMetadata: [String]

    /// The version without pre-release or build metadata.
    public var core: SemanticVersion { SemanticVersion(major, minor, patch) }

    /// Whether the version has a pre-release part.
    public var isPrerelease: Bool { !prerelease.isEmpty }

    public var description: String {
        var text = "\(major).\(minor).\(patch)"
        if !prerelease.isEmpty { text += "-" + prerelease.joined(separator: ".") }
        if !buildMetadata.isEmpty { text += "+" + buildMetadata.joined(separator: ".") }
        return text
    }

    // MARK: Initialization

    /// Creates a version from its parts.
    public init(_ major: Int, _ minor: Int, _ patch: Int, prerelease: [String] = [], buildMetadata: [String] = []) {
        precondition(major >= 0 && minor >= 0 && patch >= 0, "version numbers are never negative")
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
        self.buildMetadata = buildMetadata
    }

    /// Parses a version strictly: three numbers without leading zeros, identifiers of `[0-9A-Za-z-]`, nothing around.
    ///
    /// Returns `nil` for anything else, like `1.0`, `v1.0.0`, `01.0.0` or `1.0.0-`.
    public init?(_ text: String) {
        var rest = Substring(text)
        var buildMetadata: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            guard let identifiers = Self.identifiers(rest[rest.index(after: plus)...], numericRules: false) else {
                return nil
            }
            buildMetadata = identifiers
            rest = rest[..<plus]
        }
        var prerelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            guard let identifiers = Self.identifiers(rest[rest.index(after: dash)...], numericRules: true) else {
                return nil
            }
            prerelease = identifiers
            rest = rest[..<dash]
        }
        let numbers = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 3 else { return nil }
        var parsed: [Int] = []
        for number in numbers {
            guard Self.isNumeric(number), number == "0" || number.first != "0", let value = Int(number) else {
                return nil
            }
            parsed.append(value)
        }
        self.init(parsed[0], parsed[1], parsed[2], prerelease: prerelease, buildMetadata: buildMetadata)
    }

    // MARK: Comparable

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if (lhs.major, lhs.minor, lhs.patch) != (rhs.major, rhs.minor, rhs.patch) {
            return (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): return precedes(lhs.prerelease, rhs.prerelease)
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) == (rhs.major, rhs.minor, rhs.patch) && lhs.prerelease == rhs.prerelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(prerelease)
    }
}

// MARK: - Codable

extension SemanticVersion: Codable {
    /// Decodes a version from its text, like `"1.2.0"`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = SemanticVersion(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\"\(text)\" is not a version like 1.2.0")
            )
        }
        self = version
    }

    /// Encodes the version as its text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

// MARK: - Private Functions

extension SemanticVersion {
    fileprivate static func isNumeric(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Splits dot-separated identifiers; with `numericRules`, a numeric identifier may not have a leading zero.
    fileprivate static func identifiers(_ text: Substring, numericRules: Bool) -> [String]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty else { return nil }
            let allowed = part.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || byte == UInt8(ascii: "-")
            }
            guard allowed else { return nil }
            if numericRules, isNumeric(part), part.count > 1, part.first == "0" { return nil }
        }
        return parts.map(String.init)
    }

    /// Whether pre-release `lhs` comes before pre-release `rhs` (semver.org §11.4).
    fileprivate static func precedes(_ lhs: [String], _ rhs: [String]) -> Bool {
        for (left, right) in zip(lhs, rhs) where left != right {
            switch (isNumeric(Substring(left)), isNumeric(Substring(right))) {
            case (true, true):
                // Compare by length first: numeric identifiers have no leading zeros, and may exceed `Int`.
                return left.count != right.count ? left.count < right.count : left < right
            case (true, false): return true
            case (false, true): return false
            case (false, false): return left < right
            }
        }
        return lhs.count < rhs.count
    }
}
